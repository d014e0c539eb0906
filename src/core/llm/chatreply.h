#pragma once

#include "llm/tokenusage.h"

#include <QString>

#include <optional>

// The outcome of one chat call after all its attempts. `error` is empty on success; `content` may still be
// empty then (the agents turn an empty reply into their own parse error).
struct ChatReply
{
    enum class Error
    {
        None,
        Cancelled,
        Timeout,  // every attempt ran past the endpoint's timeout
        Http,     // a non-2xx status that is not worth retrying, or the last of the retryable ones
        Network,  // connection refused, reset, DNS, TLS
        BadReply, // not JSON, or JSON without choices[0].message
        TooLarge, // beyond ChatClient::maxReplyBytes
        Config,   // the endpoint is unusable as configured (no key, bad URL)
    };

    Error error = Error::None;
    QString errorText; // for people: what failed and, where we know, what to do
    int httpStatus = 0;
    QString content;
    QString reasoning;    // reasoning_content / reasoning, when the server returns it
    QString finishReason; // "stop", "length" (truncated by max_tokens), ...
    std::optional<TokenUsage> usage;
    std::optional<double> costUsd; // known only with usage and a price for the model
    qint64 latencyMs = 0;          // from send() to the end, retries and queueing included
    int attempts = 0;
    // The full length, in characters, of a content or reasoning that was over its role's cap (ReplyCaps) and
    // was cut: `content` and `reasoning` then hold the kept part and a note saying so.
    std::optional<qsizetype> contentCutFrom;
    std::optional<qsizetype> reasoningCutFrom;
    QString model;    // the model that was asked
    QString endpoint; // the endpoint's name

    bool ok() const { return error == Error::None; }
};
