#pragma once

#include "llm/chatreply.h"
#include "llm/chatrequest.h"
#include "llm/endpoint.h"
#include "llm/retrypolicy.h"

#include <QList>
#include <QObject>
#include <QRandomGenerator>

#include <deque>
#include <map>
#include <memory>

class CostLedger;
class LlmCallRecorder;
class QNetworkAccessManager;
class QNetworkReply;

// Talks to one OpenAI-compatible endpoint: POST {baseUrl}/chat/completions. Calls queue behind the endpoint's
// concurrency limit, transient failures are retried per the RetryPolicy, each call ends with exactly one
// finished() signal (success, error or cancellation), and every call is booked in the ledger and handed to
// the recorder when those are set. Event-driven: use it from the thread that owns it.
class ChatClient : public QObject
{
    Q_OBJECT
public:
    explicit ChatClient(const Endpoint &endpoint, QObject *parent = nullptr);
    ~ChatClient() override;

    const Endpoint &endpoint() const { return m_endpoint; }
    // The key, held in memory only and sent in the endpoint's auth header; never logged or recorded.
    void setApiKey(const QString &key) { m_apiKey = key; }
    void setRetryPolicy(const RetryPolicy &policy) { m_policy = policy; }
    const RetryPolicy &retryPolicy() const { return m_policy; }
    void setRandomSeed(quint32 seed) { m_rng.seed(seed); } // for the backoff jitter
    void setMaxReplyBytes(qint64 bytes) { m_maxReplyBytes = bytes; }
    void setLedger(CostLedger *ledger) { m_ledger = ledger; }
    void setRecorder(LlmCallRecorder *recorder) { m_recorder = recorder; }

    // Queues a call and returns its id (never 0). finished(id, ...) always follows later, through the event
    // loop, also when the endpoint is unusable: never before send() returns.
    quint64 send(const ChatRequest &request);
    void cancel(quint64 id);
    void cancelAll();
    int running() const { return m_running; }
    int queued() const { return int(m_queue.size()); }

Q_SIGNALS:
    void delta(quint64 id, const QString &text); // streamed content as it arrives
    // The call is being tried again after its stream broke off: drop what delta() delivered for it so far,
    // the next deltas start the reply from the beginning.
    void deltaReset(quint64 id);
    void retrying(quint64 id, int nextAttempt, qint64 delayMs, const QString &reason);
    void finished(quint64 id, const ChatReply &reply);

private:
    struct Call;
    void pump();
    void startAttempt(Call &call);
    void onReadyRead(quint64 id);
    void onReplyFinished(quint64 id);
    void handleStreamEvent(Call &call, const QByteArray &payload);
    void capReply(const Call &call, ChatReply &reply) const;
    void retryOrFail(Call &call, ChatReply::Error kind, const QString &reason, const QByteArray &retryAfter);
    void complete(quint64 id, ChatReply reply);
    void failLater(quint64 id, const ChatReply &reply); // a call refused before it was queued
    ChatReply failure(ChatReply::Error kind, const QString &text) const;
    QString redirectText(const QNetworkReply &reply, int status) const;
    QByteArray requestBody(const ChatRequest &request) const;
    QString redacted(QString text) const;

    Endpoint m_endpoint;
    QString m_apiKey;
    RetryPolicy m_policy;
    QRandomGenerator m_rng;
    qint64 m_maxReplyBytes = 64LL * 1024 * 1024;
    CostLedger *m_ledger = nullptr;
    LlmCallRecorder *m_recorder = nullptr;
    QNetworkAccessManager *network(qsizetype &lane);
    static constexpr int kConnectionsPerManager = 6;
    QList<QNetworkAccessManager *> m_networks;
    QList<int> m_lanesInUse; // replies alive per manager
    std::map<quint64, std::unique_ptr<Call>> m_calls;
    std::deque<quint64> m_queue;
    int m_running = 0;
    quint64 m_nextId = 1;
    bool m_holdQueue = false; // while cancelAll() runs, freed slots must not start queued calls
};
