#pragma once

#include <QByteArray>
#include <QDateTime>

#include <optional>

class QRandomGenerator;

// When and how long to wait before trying a chat call again. Transient failures (429, 5xx, timeouts, dropped
// connections) are retried with exponential backoff and jitter, so many clients hitting one server spread
// out; a server's Retry-After wins over our own guess, within a bound.
struct RetryPolicy
{
    int maxAttempts = 5;          // first try included
    int baseDelayMs = 1000;       // the wait after the first failure, before jitter
    int maxDelayMs = 60000;       // the exponential growth stops here
    int maxRetryAfterMs = 300000; // a Retry-After longer than this ends the call instead of waiting
    double jitter = 0.5;          // fraction of the delay that is randomized (0: none, 1: full jitter)

    // The wait before attempt `nextAttempt` (2 = the first retry), honouring a Retry-After header when given.
    // std::nullopt: the server asked for a longer wait than maxRetryAfterMs.
    std::optional<qint64> delayMs(int nextAttempt, const QByteArray &retryAfter, const QDateTime &now,
                                  QRandomGenerator &rng) const;

    // Retry-After is either delta-seconds or an HTTP date (RFC 9110 §10.2.3). Returns milliseconds from now,
    // clamped at 0; std::nullopt when absent or unparsable.
    static std::optional<qint64> parseRetryAfter(const QByteArray &value, const QDateTime &now);
    static bool retryableHttpStatus(int status) { return status == 429 || (status >= 500 && status <= 599); }
};
