// ChatClient against ScriptedLlmServer, a stand-in for a real model server on loopback.
#include "isolatedsettings.h"
#include "llm/apikeystore.h"
#include "llm/chatclient.h"
#include "llm/costledger.h"
#include "llm/llmconfig.h"
#include "llm/memorycallrecorder.h"
#include "llm/modelroster.h"
#include "llm/replycaps.h"
#include "scriptedllmserver.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QLoggingCategory>
#include <QMutex>
#include <QSettings>
#include <QSignalSpy>
#include <QTest>

namespace {
// Collects every finished() of a client by call id.
struct Finished : QObject
{
    QMap<quint64, ChatReply> replies;
    explicit Finished(ChatClient *client)
    {
        QObject::connect(client, &ChatClient::finished, this,
                         [this](quint64 id, const ChatReply &reply) { replies.insert(id, reply); });
    }
    bool waitFor(quint64 id, int ms = 10000)
    {
        return QTest::qWaitFor([&] { return replies.contains(id); }, ms);
    }
};

ChatRequest hello(AgentRole role = AgentRole::Planner)
{
    return {
        {ChatMessage::system(QStringLiteral("You are terse.")), ChatMessage::user(QStringLiteral("Say hi."))},
        role,
        false,
        QStringLiteral("test"),
        std::nullopt};
}

// Captures every log line of the process, to prove a key never reaches one.
QMutex logMutex;
QStringList capturedLog;
QtMessageHandler previousHandler = nullptr;
void captureLog(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    {
        QMutexLocker lock(&logMutex);
        capturedLog << QStringLiteral("%1 %2").arg(
            QString::fromLatin1(context.category ? context.category : ""), message);
    }
    if (previousHandler)
        previousHandler(type, context, message);
}
} // namespace

class TestChatClient : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    ScriptedLlmServer *m_server = nullptr;

    Endpoint endpoint(const QString &name = QStringLiteral("local"),
                      const QString &model = QStringLiteral("stand-in-model"))
    {
        Endpoint e;
        e.name = name;
        e.baseUrl = m_server->baseUrl();
        e.model = model;
        e.timeoutMs = 5000;
        e.concurrency = 4;
        return e;
    }
    static RetryPolicy fastRetries()
    {
        RetryPolicy p;
        p.maxAttempts = 4;
        p.baseDelayMs = 10; // tests keep backoff short through the policy, never by sleeping
        p.maxDelayMs = 50;
        return p;
    }

private Q_SLOTS:
    void init()
    {
        m_server = new ScriptedLlmServer(this);
        QVERIFY(m_server->start());
    }
    void cleanup()
    {
        delete m_server;
        m_server = nullptr;
    }

    void happyPath()
    {
        Endpoint e = endpoint();
        e.temperature = 0.7;
        e.maxTokens = 256;
        e.reasoningEffort = QStringLiteral("medium");
        e.extraHeaders = {{QStringLiteral("X-Title"), QStringLiteral("AccelOpt")}};
        ChatClient client(e);
        CostLedger ledger;
        PriceTable prices;
        prices.set(QStringLiteral("stand-in-model"), {1.0, 2.0});
        ledger.setPrices(prices);
        MemoryCallRecorder recorder;
        client.setLedger(&ledger);
        client.setRecorder(&recorder);
        Finished done(&client);
        m_server->enqueue(
            ScriptedLlmServer::completion(QStringLiteral("hi there"), ScriptedLlmServer::Usage{1000, 500}));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QVERIFY2(r.ok(), qPrintable(r.errorText));
        QCOMPARE(r.content, QStringLiteral("hi there"));
        QCOMPARE(r.finishReason, QStringLiteral("stop"));
        QVERIFY(r.usage);
        QCOMPARE(r.usage->inputTokens, 1000);
        QCOMPARE(r.usage->outputTokens, 500);
        QVERIFY(r.costUsd);
        QVERIFY(qFuzzyCompare(*r.costUsd, (1000 * 1.0 + 500 * 2.0) / 1e6));
        QCOMPARE(r.attempts, 1);

        const auto &req = m_server->requests().first();
        QCOMPARE(req.method, QByteArray("POST"));
        QCOMPARE(req.path, QByteArray("/v1/chat/completions"));
        QCOMPARE(req.json.value(QStringLiteral("model")).toString(), QStringLiteral("stand-in-model"));
        QCOMPARE(req.json.value(QStringLiteral("messages")).toArray().size(), 2);
        QCOMPARE(req.json.value(QStringLiteral("temperature")).toDouble(), 0.7);
        QCOMPARE(req.json.value(QStringLiteral("max_tokens")).toInt(), 256);
        QCOMPARE(req.json.value(QStringLiteral("reasoning_effort")).toString(), QStringLiteral("medium"));
        QVERIFY(!req.json.contains(QStringLiteral("top_p")));
        QCOMPARE(req.headers.value("x-title"), QByteArray("AccelOpt"));
        QVERIFY(!req.headers.contains("authorization")); // KeySource::None sends no key

        QCOMPARE(recorder.calls().size(), 1);
        const LlmCallRecord &rec = recorder.calls().first();
        QCOMPARE(rec.role, QStringLiteral("planner"));
        QCOMPARE(rec.model, QStringLiteral("stand-in-model"));
        QCOMPARE(rec.reply, QStringLiteral("hi there"));
        QCOMPARE(rec.messages.size(), 2);
        QCOMPARE(rec.tag, QStringLiteral("test"));
        QVERIFY(rec.error.isEmpty());
        QVERIFY(rec.costUsd);
        QVERIFY(!req.json.contains(QStringLiteral("seed"))); // the request had none
    }

    void seedIsSentOnlyWhenAllowed()
    {
        Endpoint e = endpoint();
        for (const bool allowed : {true, false}) {
            e.sendSeed = allowed;
            ChatClient client(e);
            Finished done(&client);
            m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("ok")));
            ChatRequest request = hello();
            request.seed = 123456789012LL;
            const quint64 id = client.send(request);
            QVERIFY(done.waitFor(id));
            const QJsonObject body = m_server->requests().last().json;
            QCOMPARE(body.contains(QStringLiteral("seed")), allowed);
            if (allowed)
                QCOMPARE(body.value(QStringLiteral("seed")).toInteger(), 123456789012LL);
        }
        QVERIFY(Endpoint::fromJson(e.toJson()).sendSeed == false); // the setting survives the config file
    }

    void retryAfterIsHonoured()
    {
        ChatClient client(endpoint());
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::error(429, "slow down", {{"Retry-After", "1"}}));
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("ok")));
        QSignalSpy retrying(&client, &ChatClient::retrying);
        QElapsedTimer clock;
        clock.start();
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QVERIFY2(done.replies.value(id).ok(), qPrintable(done.replies.value(id).errorText));
        QCOMPARE(done.replies.value(id).attempts, 2);
        QVERIFY2(clock.elapsed() >= 950, "the server asked for 1 s; the base delay alone is 10 ms");
        QCOMPARE(retrying.size(), 1);
        QCOMPARE(retrying.first().at(2).toLongLong(), 1000);
    }

    void retryAfterForms()
    {
        const QDateTime now = QDateTime(QDate(2025, 11, 6), QTime(8, 49, 37), Qt::UTC);
        QCOMPARE(RetryPolicy::parseRetryAfter("120", now), std::optional<qint64>(120000));
        QCOMPARE(RetryPolicy::parseRetryAfter("Thu, 06 Nov 2025 08:49:47 GMT", now),
                 std::optional<qint64>(10000));
        QCOMPARE(RetryPolicy::parseRetryAfter("Thu, 06 Nov 2025 08:49:00 GMT", now),
                 std::optional<qint64>(0));
        QVERIFY(!RetryPolicy::parseRetryAfter("soon", now));
        QVERIFY(!RetryPolicy::parseRetryAfter("", now));
        // Exponential growth with bounded jitter, and a Retry-After beyond the limit ends the call.
        RetryPolicy p;
        p.baseDelayMs = 100;
        p.maxDelayMs = 1000;
        p.jitter = 0.5;
        QRandomGenerator rng(7);
        for (int attempt = 2; attempt <= 8; ++attempt) {
            const qint64 raw = std::min<qint64>(1000, 100LL << (attempt - 2));
            const qint64 d = *p.delayMs(attempt, {}, now, rng);
            QVERIFY(d >= raw / 2 && d <= raw);
        }
        p.maxRetryAfterMs = 5000;
        QVERIFY(!p.delayMs(2, "60", now, rng));
    }

    void serverErrorsAreRetried()
    {
        ChatClient client(endpoint());
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::error(500, "boom"));
        m_server->enqueue(ScriptedLlmServer::error(503, "busy"));
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("third time")));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QCOMPARE(done.replies.value(id).content, QStringLiteral("third time"));
        QCOMPARE(done.replies.value(id).attempts, 3);
        QCOMPARE(m_server->requestCount(), 3);
    }

    void retriesAreBounded()
    {
        ChatClient client(endpoint());
        RetryPolicy p = fastRetries();
        p.maxAttempts = 3;
        client.setRetryPolicy(p);
        Finished done(&client);
        m_server->setHandler([](const auto &) { return ScriptedLlmServer::error(502, "bad gateway"); });
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QCOMPARE(r.error, ChatReply::Error::Http);
        QCOMPARE(r.attempts, 3);
        QVERIFY(r.errorText.contains(QStringLiteral("gave up after 3 attempts")));
        QVERIFY(r.errorText.contains(QStringLiteral("bad gateway")));
    }

    void clientErrorsAreNotRetried()
    {
        ChatClient client(endpoint());
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::error(404, "The model `nope` does not exist."));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QCOMPARE(done.replies.value(id).error, ChatReply::Error::Http);
        QCOMPARE(done.replies.value(id).httpStatus, 404);
        QCOMPARE(done.replies.value(id).attempts, 1);
        QVERIFY(done.replies.value(id).errorText.contains(QStringLiteral("does not exist")));
    }

    void timeoutIsRetriedThenReported()
    {
        Endpoint e = endpoint();
        e.timeoutMs = 1000;
        ChatClient client(e);
        RetryPolicy p = fastRetries();
        p.maxAttempts = 2;
        client.setRetryPolicy(p);
        Finished done(&client);
        m_server->setHandler([](const auto &) {
            ScriptedLlmServer::Response r;
            r.hang = true;
            return r;
        });
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id, 30000));
        QCOMPARE(done.replies.value(id).error, ChatReply::Error::Timeout);
        QCOMPARE(done.replies.value(id).attempts, 2);
        QCOMPARE(m_server->requestCount(), 2);
    }

    void timeoutThenSuccess()
    {
        // The timeout also bounds the good reply: a second, so a loaded machine's event loop never misses it.
        Endpoint e = endpoint();
        e.timeoutMs = 1000;
        ChatClient client(e);
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        ScriptedLlmServer::Response hang;
        hang.hang = true;
        m_server->enqueue(hang);
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("late but fine")));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id, 30000));
        QCOMPARE(done.replies.value(id).content, QStringLiteral("late but fine"));
    }

    void malformedJson()
    {
        // A garbled body (a proxy cutting it off) is asked again; well-formed JSON that is not a chat reply
        // is a wrong endpoint, which asking again cannot mend.
        ChatClient client(endpoint());
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        ScriptedLlmServer::Response r;
        r.body = "{\"choices\": [ {\"message\": ";
        m_server->enqueue(r);
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("second time lucky")));
        ScriptedLlmServer::Response notChat;
        notChat.body = "{\"hello\": \"world\"}";
        m_server->enqueue(notChat);
        const quint64 a = client.send(hello());
        QVERIFY(done.waitFor(a));
        const quint64 b = client.send(hello());
        QVERIFY(done.waitFor(b));
        QVERIFY(done.replies.value(a).ok());
        QCOMPARE(done.replies.value(a).content, QStringLiteral("second time lucky"));
        QCOMPARE(done.replies.value(b).error, ChatReply::Error::BadReply);
        QVERIFY(done.replies.value(b).errorText.contains(QStringLiteral("choices[0].message")));
        QCOMPARE(m_server->requestCount(), 3);

        // Garbled every time: it gives up, saying what came back.
        client.setRetryPolicy(RetryPolicy{2, 1, 1, 1000, 0});
        m_server->enqueue(r);
        m_server->enqueue(r);
        const quint64 c = client.send(hello());
        QVERIFY(done.waitFor(c));
        QCOMPARE(done.replies.value(c).error, ChatReply::Error::BadReply);
        QVERIFY2(done.replies.value(c).errorText.contains(QStringLiteral("gave up after 2 attempts")) &&
                     done.replies.value(c).errorText.contains(QStringLiteral("not a JSON object")),
                 qPrintable(done.replies.value(c).errorText));
    }

    void replyWithoutUsageHasUnknownCost()
    {
        ChatClient client(endpoint());
        CostLedger ledger;
        PriceTable prices;
        prices.set(QStringLiteral("stand-in-model"), {3.0, 15.0});
        ledger.setPrices(prices);
        client.setLedger(&ledger);
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("no usage here"), std::nullopt));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QVERIFY(done.replies.value(id).ok());
        QVERIFY(!done.replies.value(id).usage);
        QVERIFY(!done.replies.value(id).costUsd);
        QCOMPARE(ledger.total().calls, 1);
        QCOMPARE(ledger.total().unknownUsageCalls, 1);
        QCOMPARE(ledger.total().inputTokens, 0);
        QVERIFY(!ledger.total().costComplete());
        QVERIFY(CostLedger::describe(ledger.total()).contains(QStringLiteral("unknown")));
    }

    void emptyReply()
    {
        ChatClient client(endpoint());
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::completion(QString()));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QVERIFY(
            done.replies.value(id).ok()); // the transport worked; the agent's parser rejects the emptiness
        QVERIFY(done.replies.value(id).content.isEmpty());
    }

    void twoMegabyteReply()
    {
        ChatClient client(endpoint());
        Finished done(&client);
        QString big;
        big.reserve(2 * 1024 * 1024);
        while (big.size() < 2 * 1024 * 1024)
            big += QStringLiteral("x = nl.load(a[i, j])  # filler line\n");
        m_server->enqueue(ScriptedLlmServer::completion(big));
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QVERIFY(done.replies.value(id).ok());
        // The transport takes it whole; what is kept is the planner's cap of it (ReplyCaps,
        // tst_chatclientlimits).
        QCOMPARE(done.replies.value(id).contentCutFrom, big.size());
        QVERIFY(
            done.replies.value(id).content.startsWith(big.left(ReplyCaps::contentChars(AgentRole::Planner))));

        client.setMaxReplyBytes(1024 * 1024); // and a cap that stops a runaway reply
        m_server->enqueue(ScriptedLlmServer::completion(big));
        const quint64 capped = client.send(hello());
        QVERIFY(done.waitFor(capped));
        QCOMPARE(done.replies.value(capped).error, ChatReply::Error::TooLarge);
    }

    void concurrencyLimitHoldsUnderLoad()
    {
        Endpoint e = endpoint();
        e.concurrency = 3;
        ChatClient client(e);
        Finished done(&client);
        m_server->setHandler([](const auto &) {
            auto r = ScriptedLlmServer::completion(QStringLiteral("ok"));
            r.delayMs = 3;
            return r;
        });
        m_server->holdUntilInFlight(3); // the limit is reached on any machine, not only when replies are slow
        QList<quint64> ids;
        for (int i = 0; i < 100; ++i)
            ids << client.send(hello(AgentRole::Executor));
        QCOMPARE(client.running(), 3);
        QCOMPARE(client.queued(), 97);
        QVERIFY(QTest::qWaitFor([&] { return done.replies.size() == 100; }, 20000));
        for (quint64 id : ids)
            QVERIFY(done.replies.value(id).ok());
        QCOMPARE(m_server->requestCount(), 100);
        QCOMPARE(m_server->maxInFlight(), 3);
    }

    void concurrencyAboveSixConnections()
    {
        // Qt opens at most 6 HTTP/1.1 connections per server and manager; a limit of 16 must still mean 16.
        Endpoint e = endpoint();
        e.concurrency = 16;
        ChatClient client(e);
        Finished done(&client);
        m_server->setHandler([](const auto &) {
            auto r = ScriptedLlmServer::completion(QStringLiteral("ok"));
            r.delayMs = 300;
            return r;
        });
        m_server->holdUntilInFlight(16);
        for (int i = 0; i < 48; ++i)
            client.send(hello(AgentRole::Executor));
        QVERIFY(QTest::qWaitFor([&] { return done.replies.size() == 48; }, 30000));
        QCOMPARE(m_server->maxInFlight(), 16);
        for (const ChatReply &r : std::as_const(done.replies))
            QVERIFY(r.ok());
    }

    void cancelOneAndAll()
    {
        Endpoint e = endpoint();
        e.concurrency = 2;
        ChatClient client(e);
        MemoryCallRecorder recorder;
        client.setRecorder(&recorder);
        Finished done(&client);
        m_server->setHandler([](const auto &) {
            ScriptedLlmServer::Response r;
            r.hang = true;
            return r;
        });
        QList<quint64> ids;
        for (int i = 0; i < 5; ++i)
            ids << client.send(hello());
        QVERIFY(QTest::qWaitFor([&] { return m_server->inFlight() == 2; }, 5000));
        client.cancel(ids.at(0)); // a running one: its slot goes to the next queued call
        QCOMPARE(done.replies.value(ids.at(0)).error, ChatReply::Error::Cancelled);
        QCOMPARE(client.running(), 2);
        QCOMPARE(client.queued(), 2);
        client.cancel(ids.at(4)); // a queued one
        QCOMPARE(done.replies.value(ids.at(4)).error, ChatReply::Error::Cancelled);
        QCOMPARE(client.queued(), 1);
        client.cancelAll();
        QCOMPARE(done.replies.size(), 5);
        for (quint64 id : ids)
            QCOMPARE(done.replies.value(id).error, ChatReply::Error::Cancelled);
        QCOMPARE(client.running(), 0);
        QCOMPARE(client.queued(), 0);
        QCOMPARE(recorder.calls().size(), 5);
        QVERIFY(
            QTest::qWaitFor([&] { return m_server->inFlight() == 0; }, 5000)); // connections really closed
        QTest::qWait(50);
        QCOMPARE(done.replies.size(), 5); // exactly one finished() per call
    }

    void streaming()
    {
        ChatClient client(endpoint());
        Finished done(&client);
        QStringList pieces;
        QObject::connect(&client, &ChatClient::delta, &client,
                         [&](quint64, const QString &t) { pieces << t; });
        m_server->enqueue(ScriptedLlmServer::streamed(
            {QStringLiteral("Title: "), QStringLiteral("tile "), QStringLiteral("bigger")}));
        ChatRequest request = hello();
        request.stream = true;
        const quint64 id = client.send(request);
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QVERIFY2(r.ok(), qPrintable(r.errorText));
        QCOMPARE(r.content, QStringLiteral("Title: tile bigger"));
        QCOMPARE(pieces.size(), 3);
        QVERIFY(r.usage);
        QCOMPARE(r.usage->outputTokens, 7);
        QCOMPARE(r.finishReason, QStringLiteral("stop"));
        QVERIFY(m_server->requests().first().json.value(QStringLiteral("stream")).toBool());
    }

    void aStreamOverTheSizeCapIsAbandoned()
    {
        // The cap counted only a non-streamed body: a stream of any length was taken whole.
        ChatClient client(endpoint());
        client.setMaxReplyBytes(64 * 1024);
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::streamed(QStringList(200, QString(1024, u'x'))));
        ChatRequest request = hello();
        request.stream = true;
        const quint64 id = client.send(request);
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QCOMPARE(r.error, ChatReply::Error::TooLarge);
        QVERIFY2(r.errorText.contains(QStringLiteral("exceeded 64 KB")), qPrintable(r.errorText));
    }

    void aRetriedStreamStartsTheDeltasOver()
    {
        // The first stream falls silent half-way; the retry answers in full. A listener that drops its text
        // on deltaReset ends with the reply, not the first attempt's half in front of it.
        Endpoint e = endpoint();
        e.timeoutMs = 1000;
        ChatClient client(e);
        client.setRetryPolicy(fastRetries());
        Finished done(&client);
        QString shown;
        int resets = 0;
        QObject::connect(&client, &ChatClient::delta, &client,
                         [&](quint64, const QString &t) { shown += t; });
        QObject::connect(&client, &ChatClient::deltaReset, &client, [&](quint64) {
            shown.clear();
            ++resets;
        });
        ScriptedLlmServer::Response broken =
            ScriptedLlmServer::streamed({QStringLiteral("Title: "), QStringLiteral("half")});
        broken.sseEvents.removeLast(); // no [DONE]
        broken.sseEvents.removeLast(); // and no finish
        broken.stall = true;
        m_server->enqueue(broken);
        m_server->enqueue(ScriptedLlmServer::streamed(
            {QStringLiteral("Title: "), QStringLiteral("tile "), QStringLiteral("bigger")}));
        ChatRequest request = hello();
        request.stream = true;
        const quint64 id = client.send(request);
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QVERIFY2(r.ok(), qPrintable(r.errorText));
        QCOMPARE(r.content, QStringLiteral("Title: tile bigger"));
        QCOMPARE(resets, 1);
        QCOMPARE(shown, r.content);
    }

    void costsSumAcrossRolesAndModels()
    {
        ChatClient big(endpoint(QStringLiteral("big"), QStringLiteral("big-model")));
        ChatClient small(endpoint(QStringLiteral("small"), QStringLiteral("small-model")));
        CostLedger ledger;
        PriceTable prices;
        prices.set(QStringLiteral("big-model"), {2.0, 10.0});
        prices.set(QStringLiteral("small-model"), {0.5, 1.0});
        ledger.setPrices(prices);
        big.setLedger(&ledger);
        small.setLedger(&ledger);
        Finished doneBig(&big), doneSmall(&small);
        m_server->setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::completion(QStringLiteral("ok"), ScriptedLlmServer::Usage{1000, 2000});
        });
        // big: 2 planner calls, small: 3 executor calls and 1 summarizer call.
        QList<quint64> bigIds{big.send(hello(AgentRole::Planner)), big.send(hello(AgentRole::Planner))};
        QList<quint64> smallIds{
            small.send(hello(AgentRole::Executor)), small.send(hello(AgentRole::Executor)),
            small.send(hello(AgentRole::Executor)), small.send(hello(AgentRole::Summarizer))};
        QVERIFY(QTest::qWaitFor([&] { return doneBig.replies.size() == 2 && doneSmall.replies.size() == 4; },
                                10000));
        const double bigCall = (1000 * 2.0 + 2000 * 10.0) / 1e6;  // 0.022
        const double smallCall = (1000 * 0.5 + 2000 * 1.0) / 1e6; // 0.0025
        QVERIFY(qFuzzyCompare(ledger.forModel(QStringLiteral("big-model")).knownUsd, 2 * bigCall));
        QVERIFY(qFuzzyCompare(ledger.forModel(QStringLiteral("small-model")).knownUsd, 4 * smallCall));
        QVERIFY(qFuzzyCompare(ledger.forRole(AgentRole::Planner).knownUsd, 2 * bigCall));
        QVERIFY(qFuzzyCompare(ledger.forRole(AgentRole::Executor).knownUsd, 3 * smallCall));
        QVERIFY(qFuzzyCompare(ledger.forRole(AgentRole::Summarizer).knownUsd, smallCall));
        QCOMPARE(ledger.forRole(AgentRole::Fixer).calls, 0);
        QVERIFY(qFuzzyCompare(ledger.total().knownUsd, 2 * bigCall + 4 * smallCall));
        QCOMPARE(ledger.total().calls, 6);
        QCOMPARE(ledger.total().inputTokens, 6000);
        QCOMPARE(ledger.total().outputTokens, 12000);
        QVERIFY(ledger.total().costComplete());

        // A model without a price: tokens counted, cost unknown, never zero.
        ChatClient unpriced(endpoint(QStringLiteral("other"), QStringLiteral("unpriced-model")));
        unpriced.setLedger(&ledger);
        Finished doneOther(&unpriced);
        const quint64 id = unpriced.send(hello(AgentRole::Fixer));
        QVERIFY(doneOther.waitFor(id));
        QVERIFY(!doneOther.replies.value(id).costUsd);
        QCOMPARE(ledger.total().unpricedCalls, 1);
        QCOMPARE(ledger.forRole(AgentRole::Fixer).inputTokens, 1000);
        QVERIFY(qFuzzyCompare(ledger.total().knownUsd, 2 * bigCall + 4 * smallCall));
    }

    void apiKeyNeverLoggedOrSaved()
    {
        const QString key = QStringLiteral("sk-test-SECRET-4f1c9e27b3");
        qputenv("ACCELOPT_TEST_KEY", key.toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        QLoggingCategory::setFilterRules(QStringLiteral("accelopt.*.debug=true"));
        previousHandler = qInstallMessageHandler(captureLog);

        Endpoint e = endpoint(QStringLiteral("secret"));
        e.keySource = Endpoint::KeySource::Keychain; // keychain off -> falls back to the variable
        e.keyEnvVar = QStringLiteral("ACCELOPT_TEST_KEY");
        ApiKeyStore keys;
        std::optional<ApiKeyStore::Lookup> found;
        keys.lookup(e, [&](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&] { return found.has_value(); }, 5000));
        QVERIFY2(found->ok, qPrintable(found->message));
        QCOMPARE(found->source, QStringLiteral("env:ACCELOPT_TEST_KEY"));
        QVERIFY(found->message.contains(QStringLiteral("keychain")));

        ChatClient client(e);
        client.setApiKey(found->key);
        client.setRetryPolicy(fastRetries());
        MemoryCallRecorder recorder;
        client.setRecorder(&recorder);
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::error(500, "transient"));
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("authorized")));
        // A server that echoes the rejected key back, as some do.
        m_server->enqueue(ScriptedLlmServer::error(401, "Incorrect API key provided: " + key.toUtf8()));
        const quint64 a = client.send(hello());
        QVERIFY(done.waitFor(a));
        const quint64 b = client.send(hello());
        QVERIFY(done.waitFor(b));
        QCOMPARE(m_server->requests().first().headers.value("authorization"), "Bearer " + key.toUtf8());
        QVERIFY(done.replies.value(b).errorText.contains(QStringLiteral("[redacted]")));
        QVERIFY(!done.replies.value(b).errorText.contains(key));

        // The header style for gateways that want their own header name.
        Endpoint h = e;
        h.authStyle = Endpoint::AuthStyle::ApiKeyHeader;
        h.authHeader = QStringLiteral("api-key");
        ChatClient headerClient(h);
        headerClient.setApiKey(key);
        Finished doneHeader(&headerClient);
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("ok")));
        const quint64 c = headerClient.send(hello());
        QVERIFY(doneHeader.waitFor(c));
        QCOMPARE(m_server->requests().last().headers.value("api-key"), key.toUtf8());
        QVERIFY(!m_server->requests().last().headers.contains("authorization"));

        // Saved settings: the config file and QSettings hold the endpoint, never the key.
        LlmConfig config;
        config.endpoints << e << h;
        config.roster.assign(AgentRole::Planner, e.name);
        const QString path = m_settings.path() + QStringLiteral("/llm.json");
        QString error;
        QVERIFY2(config.save(path, &error), qPrintable(error));
        {
            QSettings settings;
            settings.setValue(QStringLiteral("models/lastEndpoint"), e.name);
        }
        qInstallMessageHandler(previousHandler);
        QLoggingCategory::setFilterRules(QString());

        {
            QMutexLocker lock(&logMutex);
            QVERIFY2(capturedLog.size() >= 4, "debug logging of the calls was expected");
            for (const QString &line : std::as_const(capturedLog))
                QVERIFY2(!line.contains(key), qPrintable(line));
        }
        for (const LlmCallRecord &rec : recorder.calls()) {
            QVERIFY(!rec.error.contains(key));
            QVERIFY(!rec.reply.contains(key));
        }
        int scanned = 0;
        QDirIterator files(m_settings.path(), QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            QVERIFY2(!file.readAll().contains(key.toUtf8()), qPrintable(file.fileName()));
            ++scanned;
        }
        QVERIFY(scanned >= 2);
        qunsetenv("ACCELOPT_TEST_KEY");
        qunsetenv("ACCELOPT_NO_KEYCHAIN");
    }

    void missingKeyFailsClearly()
    {
        Endpoint e = endpoint();
        e.keySource = Endpoint::KeySource::Environment;
        e.keyEnvVar = QStringLiteral("ACCELOPT_SURELY_UNSET_KEY");
        ApiKeyStore keys;
        std::optional<ApiKeyStore::Lookup> found;
        keys.lookup(e, [&](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&] { return found.has_value(); }, 5000));
        QVERIFY(!found->ok);
        QVERIFY(found->message.contains(QStringLiteral("ACCELOPT_SURELY_UNSET_KEY")));
        ChatClient client(e);
        Finished done(&client);
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QCOMPARE(done.replies.value(id).error, ChatReply::Error::Config);
        QCOMPARE(m_server->requestCount(), 0);
    }

    void keychainFallsBackGracefully()
    {
        // No Secret Service or KWallet here: the keychain must fail (or time out) and fall back to the
        // variable.
        qputenv("ACCELOPT_FALLBACK_KEY", "sk-fallback-value");
        Endpoint e = endpoint(QStringLiteral("kc"));
        e.keySource = Endpoint::KeySource::Keychain;
        e.keyEnvVar = QStringLiteral("ACCELOPT_FALLBACK_KEY");
        ApiKeyStore keys;
        keys.setKeychainTimeoutMs(3000);
        std::optional<ApiKeyStore::Lookup> found;
        keys.lookup(e, [&](const ApiKeyStore::Lookup &l) { found = l; });
        QVERIFY(QTest::qWaitFor([&] { return found.has_value(); }, 8000));
        if (found->source == QStringLiteral("keychain"))
            QSKIP("a working keychain holds a key for this test endpoint; nothing to fall back from");
        QVERIFY2(found->ok, qPrintable(found->message));
        QCOMPARE(found->key, QStringLiteral("sk-fallback-value"));
        QVERIFY(found->message.contains(QStringLiteral("ACCELOPT_FALLBACK_KEY")));
        qunsetenv("ACCELOPT_FALLBACK_KEY");
    }

    void rosterPicksDeterministicallyByWeight()
    {
        ModelRoster roster;
        roster.assign(AgentRole::Planner, {{QStringLiteral("a"), 3.0}, {QStringLiteral("b"), 1.0}});
        roster.assign(AgentRole::Executor, QStringLiteral("c"));
        QRandomGenerator r1(42), r2(42);
        QStringList s1, s2;
        QMap<QString, int> counts;
        for (int i = 0; i < 4000; ++i) {
            s1 << roster.pick(AgentRole::Planner, r1);
            s2 << roster.pick(AgentRole::Planner, r2);
            ++counts[s1.last()];
        }
        QCOMPARE(s1, s2);
        QVERIFY(counts.value(QStringLiteral("a")) > 2800 && counts.value(QStringLiteral("a")) < 3200);
        QCOMPARE(roster.pick(AgentRole::Executor, r1), QStringLiteral("c"));
        QVERIFY(roster.pick(AgentRole::Fixer, r1).isEmpty());
        roster.assign(AgentRole::Summarizer, {{QStringLiteral("z"), 0.0}});
        QVERIFY(roster.pick(AgentRole::Summarizer, r1).isEmpty());

        QString error;
        const auto parsed = ModelRoster::parse(QStringLiteral("big:2.5, small"), &error);
        QVERIFY(parsed);
        QCOMPARE(parsed->size(), 2);
        QCOMPARE(parsed->at(0), (ModelRoster::Member{QStringLiteral("big"), 2.5}));
        QCOMPARE(ModelRoster::format(*parsed), QStringLiteral("big:2.5, small"));
        QVERIFY(!ModelRoster::parse(QStringLiteral("big:lots"), &error));
        QVERIFY(error.contains(QStringLiteral("big:lots")));
        const QStringList problems = roster.problems({QStringLiteral("a"), QStringLiteral("b")});
        QVERIFY(problems.join(u'\n').contains(QStringLiteral("'c'")));
        QVERIFY(problems.join(u'\n').contains(QStringLiteral("fixer")));
    }

    void configRoundTripAndVersioning()
    {
        LlmConfig config;
        Endpoint e = endpoint();
        e.temperature = 0.3;
        e.extraHeaders = {{QStringLiteral("HTTP-Referer"), QStringLiteral("https://example.org")}};
        config.endpoints << e;
        config.roster.assign(AgentRole::Executor, {{e.name, 2.0}});
        config.prices.set(e.model, {0.1, 0.4});
        config.retry.baseDelayMs = 20;
        const QString path = m_settings.path() + QStringLiteral("/roundtrip.json");
        QString error;
        QVERIFY(config.save(path, &error));
        const auto loaded = LlmConfig::load(path, &error);
        QVERIFY2(loaded, qPrintable(error));
        QCOMPARE(loaded->endpoints.size(), 1);
        QCOMPARE(loaded->endpoints.first().temperature, std::optional<double>(0.3));
        QCOMPARE(loaded->endpoints.first().extraHeaders, e.extraHeaders);
        QCOMPARE(loaded->roster.members(AgentRole::Executor), config.roster.members(AgentRole::Executor));
        QCOMPARE(loaded->prices.price(e.model)->outputPerMillion, 0.4);
        QCOMPARE(loaded->retry.baseDelayMs, 20);

        QFile future(path);
        QVERIFY(future.open(QIODevice::WriteOnly));
        future.write(R"({"version": 99, "endpoints": []})");
        future.close();
        QVERIFY(!LlmConfig::load(path, &error));
        QVERIFY(error.contains(QStringLiteral("version 99")));
        QVERIFY(future.open(QIODevice::WriteOnly));
        future.write("{ nope");
        future.close();
        QVERIFY(!LlmConfig::load(path, &error));
        QVERIFY(error.contains(QStringLiteral("not valid JSON")));
        QVERIFY(LlmConfig::load(path + QStringLiteral(".missing"), &error)); // absent: empty config
    }

    void unusableEndpointFailsWithoutNetwork()
    {
        Endpoint e = endpoint();
        e.baseUrl = QStringLiteral("ftp://nowhere");
        ChatClient client(e);
        Finished done(&client);
        const quint64 id = client.send(hello());
        QVERIFY(done.waitFor(id));
        QCOMPARE(done.replies.value(id).error, ChatReply::Error::Config);
        QVERIFY(done.replies.value(id).errorText.contains(QStringLiteral("not an http(s) URL")));
    }

    void refusedCallFinishesAfterSendReturns()
    {
        // A caller books the id send() returns before any reply for it can arrive (BeamSearch needs no
        // re-entrancy guard): even a call refused at once finishes through the event loop, and a cancel in
        // between is its one finished().
        Endpoint e = endpoint();
        e.baseUrl = QStringLiteral("ftp://nowhere");
        ChatClient client(e);
        QSignalSpy finished(&client, &ChatClient::finished);
        const quint64 refused = client.send(hello());
        QCOMPARE(finished.count(), 0);
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.at(0).at(0).toULongLong(), refused);
        const quint64 cancelled = client.send(hello());
        client.cancel(cancelled);
        QCOMPARE(finished.count(), 2);
        QCOMPARE(finished.at(1).at(1).value<ChatReply>().error, ChatReply::Error::Cancelled);
        QTest::qWait(50);
        QCOMPARE(finished.count(), 2);
    }
};

QTEST_GUILESS_MAIN(TestChatClient)
#include "tst_chatclient.moc"
