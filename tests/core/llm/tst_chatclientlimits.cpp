// What ChatClient refuses or cuts (issue 33): an API key over plain http:// to another machine, redirects
// (said, never followed), and replies over their role's cap. Against ScriptedLlmServer, a stand-in for a
// real model server on loopback. No request ever leaves the machine: a host that is "not this machine" is
// reached, when it is reached at all, through the stand-in acting as the HTTP proxy, so the test sees every
// request that would have gone out.
#include "llm/chatclient.h"
#include "llm/memorycallrecorder.h"
#include "llm/replycaps.h"
#include "scriptedllmserver.h"

#include <QLoggingCategory>
#include <QNetworkProxy>
#include <QTest>

namespace {
struct Finished : QObject
{
    QMap<quint64, ChatReply> replies;
    QString streamed;
    explicit Finished(ChatClient *client)
    {
        QObject::connect(client, &ChatClient::finished, this,
                         [this](quint64 id, const ChatReply &reply) { replies.insert(id, reply); });
        QObject::connect(client, &ChatClient::delta, this,
                         [this](quint64, const QString &text) { streamed += text; });
    }
    bool waitFor(quint64 id)
    {
        return QTest::qWaitFor([&] { return replies.contains(id); }, 60000);
    }
};

ChatRequest ask(AgentRole role, bool stream = false)
{
    return {
        {ChatMessage::user(QStringLiteral("Say hi."))}, role, stream, QStringLiteral("test"), std::nullopt};
}

QStringList warnings;
QtMessageHandler previousHandler = nullptr;
void keepWarnings(QtMsgType type, const QMessageLogContext &context, const QString &message)
{
    if (type == QtWarningMsg)
        warnings << message;
    if (previousHandler)
        previousHandler(type, context, message);
}
} // namespace

class TestChatClientLimits : public QObject
{
    Q_OBJECT
    ScriptedLlmServer *m_server = nullptr;

    Endpoint endpoint(const QString &baseUrl) const
    {
        Endpoint e;
        e.name = QStringLiteral("ep");
        e.baseUrl = baseUrl;
        e.model = QStringLiteral("stand-in-model");
        e.timeoutMs = 30000;
        return e;
    }
    // Every request to a host other than loopback goes to the stand-in, as to a proxy.
    void proxyEverythingToTheStandIn()
    {
        const QUrl url(m_server->baseUrl());
        QNetworkProxy::setApplicationProxy(
            QNetworkProxy(QNetworkProxy::HttpProxy, url.host(), quint16(url.port())));
    }

private Q_SLOTS:
    void init()
    {
        m_server = new ScriptedLlmServer(this);
        QVERIFY(m_server->start());
    }
    void cleanup()
    {
        QNetworkProxy::setApplicationProxy(QNetworkProxy(QNetworkProxy::NoProxy));
        delete m_server;
        m_server = nullptr;
    }

    void loopbackHosts_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<bool>("loopback");
        QTest::newRow("localhost") << "localhost" << true;
        QTest::newRow("LOCALHOST.") << "LOCALHOST." << true;
        QTest::newRow("127.0.0.1") << "127.0.0.1" << true;
        QTest::newRow("127.8.9.10") << "127.8.9.10" << true;
        QTest::newRow("::1") << "::1" << true;
        QTest::newRow("[::1]") << "[::1]" << true;
        QTest::newRow("10.0.0.1") << "10.0.0.1" << false;
        QTest::newRow("name") << "models.example.com" << false;
        QTest::newRow("localhost as a subdomain") << "localhost.example.com" << false;
        QTest::newRow("loopback-looking name") << "127.0.0.1.example.com" << false;
        QTest::newRow("::2") << "::2" << false;
        QTest::newRow("empty") << "" << false;
    }
    void loopbackHosts()
    {
        QFETCH(QString, host);
        QFETCH(bool, loopback);
        QCOMPARE(Endpoint::isLoopbackHost(host), loopback);
    }

    void aKeyOverPlainHttpToAnotherHostIsRefusedBeforeSending()
    {
        proxyEverythingToTheStandIn();
        m_server->setHandler(
            [](const auto &) { return ScriptedLlmServer::completion(QStringLiteral("hi")); });
        Endpoint e = endpoint(QStringLiteral("http://models.example.com:8000/v1"));
        e.keySource = Endpoint::KeySource::Environment;
        e.keyEnvVar = QStringLiteral("SOME_KEY");
        const QString expected = QStringLiteral(
            "endpoint 'ep' is not usable: its API key would travel unencrypted over plain http:// to "
            "models.example.com, which is not this machine: use an https:// base URL, or, only if the "
            "network to "
            "it is trusted, set \"allow_plain_http_key\": true on the endpoint in llm.json");
        QVERIFY(e.problems().join(u';').contains(expected.section(QStringLiteral("usable: "), 1)));
        {
            ChatClient client(e);
            client.setApiKey(QStringLiteral("sk-never-in-clear"));
            Finished done(&client);
            const quint64 id = client.send(ask(AgentRole::Planner));
            QVERIFY(done.waitFor(id));
            QCOMPARE(done.replies.value(id).error, ChatReply::Error::Config);
            QCOMPARE(done.replies.value(id).errorText, expected);
        }
        // A key given to the client directly, whatever the key source says, is held to the same rule.
        {
            Endpoint none = e;
            none.keySource = Endpoint::KeySource::None;
            ChatClient client(none);
            client.setApiKey(QStringLiteral("sk-never-in-clear"));
            Finished done(&client);
            const quint64 id = client.send(ask(AgentRole::Planner));
            QVERIFY(done.waitFor(id));
            QCOMPARE(done.replies.value(id).error, ChatReply::Error::Config);
            QVERIFY(done.replies.value(id).errorText.contains(QStringLiteral("allow_plain_http_key")));
        }
        QCOMPARE(m_server->requestCount(), 0); // nothing was sent, not even without the key

        // The proof that the stand-in would have seen them: an endpoint with no key goes out as before...
        {
            Endpoint open = e;
            open.keySource = Endpoint::KeySource::None;
            QVERIFY(open.problems().isEmpty());
            ChatClient client(open);
            Finished done(&client);
            const quint64 id = client.send(ask(AgentRole::Planner));
            QVERIFY(done.waitFor(id));
            QVERIFY2(done.replies.value(id).ok(), qPrintable(done.replies.value(id).errorText));
            QCOMPARE(m_server->requestCount(), 1);
            QVERIFY(!m_server->requests().last().headers.contains("authorization"));
        }
        // ...and so does one whose llm.json says the network to it is trusted, key and all.
        {
            Endpoint trusted = e;
            trusted.allowPlainHttpKey = true;
            QVERIFY(trusted.problems().isEmpty());
            QVERIFY(Endpoint::fromJson(trusted.toJson()).allowPlainHttpKey);
            ChatClient client(trusted);
            client.setApiKey(QStringLiteral("sk-trusted-link"));
            Finished done(&client);
            const quint64 id = client.send(ask(AgentRole::Planner));
            QVERIFY(done.waitFor(id));
            QVERIFY2(done.replies.value(id).ok(), qPrintable(done.replies.value(id).errorText));
            QCOMPARE(m_server->requestCount(), 2);
            QCOMPARE(m_server->requests().last().headers.value("authorization"),
                     QByteArray("Bearer sk-trusted-link"));
        }
    }

    void aKeyToLoopbackOrOverHttpsIsSent()
    {
        Endpoint e = endpoint(m_server->baseUrl()); // http://127.0.0.1:port/v1
        e.keySource = Endpoint::KeySource::Environment;
        e.keyEnvVar = QStringLiteral("SOME_KEY");
        QVERIFY(e.problems().isEmpty());
        Endpoint https = e;
        https.baseUrl = QStringLiteral("https://models.example.com/v1");
        QVERIFY(https.problems().isEmpty()); // checked, never contacted
        ChatClient client(e);
        client.setApiKey(QStringLiteral("sk-loopback"));
        Finished done(&client);
        m_server->enqueue(ScriptedLlmServer::completion(QStringLiteral("hi")));
        const quint64 id = client.send(ask(AgentRole::Planner));
        QVERIFY(done.waitFor(id));
        QVERIFY2(done.replies.value(id).ok(), qPrintable(done.replies.value(id).errorText));
        QCOMPARE(m_server->requests().last().headers.value("authorization"),
                 QByteArray("Bearer sk-loopback"));
    }

    void aRedirectSaysWhereAndIsNotFollowed_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("location");
        QTest::addColumn<QString>("says");
        QTest::newRow("301 to the new base")
            << 301 << QByteArray("https://models.example.com/v1/chat/completions")
            << "HTTP 301: the server redirects to https://models.example.com/v1/"
               "chat/completions; redirects are not followed (they would carry the "
               "API key elsewhere): set the endpoint's base URL to "
               "https://models.example.com/v1";
        QTest::newRow("308 relative")
            << 308 << QByteArray("/v2/chat/completions")
            << "HTTP 308: the server redirects to http://127.0.0.1:PORT/v2/chat/completions;"
               " redirects are not followed (they would carry the API key elsewhere): set "
               "the endpoint's base URL to http://127.0.0.1:PORT/v2";
        QTest::newRow("302 to a page")
            << 302 << QByteArray("https://login.example.com/")
            << "HTTP 302: the server redirects to https://login.example.com/; redirects "
               "are not followed (they would carry the API key elsewhere): put the final "
               "URL, up to and including /v1, in the endpoint's base URL";
        QTest::newRow("301 nowhere")
            << 301 << QByteArray()
            << "HTTP 301: the server redirects, but says nowhere (no Location header); "
               "redirects are not followed: check the endpoint's base URL";
    }
    void aRedirectSaysWhereAndIsNotFollowed()
    {
        QFETCH(int, status);
        QFETCH(QByteArray, location);
        QFETCH(QString, says);
        says.replace(QStringLiteral("PORT"), QString::number(QUrl(m_server->baseUrl()).port()));
        ScriptedLlmServer::Response redirect;
        redirect.status = status;
        redirect.body = QByteArray();
        if (!location.isEmpty())
            redirect.headers = {{"Location", location}};
        m_server->enqueue(redirect);
        ChatClient client(endpoint(m_server->baseUrl()));
        Finished done(&client);
        const quint64 id = client.send(ask(AgentRole::Planner));
        QVERIFY(done.waitFor(id));
        const ChatReply r = done.replies.value(id);
        QCOMPARE(r.error, ChatReply::Error::Http);
        QCOMPARE(r.httpStatus, status);
        QCOMPARE(r.errorText, says);
        QCOMPARE(m_server->requestCount(), 1); // not followed, not retried
    }

    void aReplyOverItsRoleCapIsCutAndSaysSo_data()
    {
        QTest::addColumn<int>("role");
        QTest::addColumn<bool>("stream");
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("cut");
        const int plannerCap = int(ReplyCaps::contentChars(AgentRole::Planner));
        const int kernelCap = int(ReplyCaps::contentChars(AgentRole::Executor));
        QTest::newRow("planner 1 MB") << int(AgentRole::Planner) << false << 1024 * 1024 << true;
        QTest::newRow("planner streamed 1 MB") << int(AgentRole::Planner) << true << 1024 * 1024 << true;
        QTest::newRow("planner at its cap") << int(AgentRole::Planner) << false << plannerCap << false;
        QTest::newRow("executor 200 KB kept") << int(AgentRole::Executor) << false << 200 * 1024 << false;
        QTest::newRow("fixer over its cap") << int(AgentRole::Fixer) << false << kernelCap + 1 << true;
        QTest::newRow("summarizer 100 KB") << int(AgentRole::Summarizer) << false << 100 * 1024 << true;
    }
    void aReplyOverItsRoleCapIsCutAndSaysSo()
    {
        QFETCH(int, role);
        QFETCH(bool, stream);
        QFETCH(int, size);
        QFETCH(bool, cut);
        const auto agent = AgentRole(role);
        const qsizetype cap = ReplyCaps::contentChars(agent);
        QString big;
        big.reserve(size);
        while (big.size() < size)
            big += QStringLiteral("1. tile the loop once more and keep it in SBUF\n");
        big.truncate(size);
        if (stream) {
            QStringList pieces;
            for (qsizetype i = 0; i < big.size(); i += 4096)
                pieces << big.mid(i, 4096);
            m_server->enqueue(ScriptedLlmServer::streamed(pieces));
        } else {
            m_server->enqueue(ScriptedLlmServer::completion(big));
        }
        ChatClient client(endpoint(m_server->baseUrl()));
        MemoryCallRecorder recorder;
        client.setRecorder(&recorder);
        Finished done(&client);
        warnings.clear();
        previousHandler = qInstallMessageHandler(keepWarnings);
        const quint64 id = client.send(ask(agent, stream));
        const bool finished = done.waitFor(id);
        qInstallMessageHandler(previousHandler);
        QVERIFY(finished);
        const ChatReply r = done.replies.value(id);
        QVERIFY2(r.ok(), qPrintable(r.errorText));
        if (!cut) {
            QCOMPARE(r.content, big);
            QVERIFY(!r.contentCutFrom);
            QVERIFY(warnings.filter(QStringLiteral("cap")).isEmpty());
            return;
        }
        const QString name = AgentRoles::name(agent);
        const QString note =
            QStringLiteral(
                "\n\n[AccelOpt cut this %1 reply here: it had %2 characters, over the cap of %3 for a "
                "%1 reply; the first %3 are kept]\n")
                .arg(name)
                .arg(size)
                .arg(cap);
        QCOMPARE(r.content, big.left(cap) + note);
        QCOMPARE(r.contentCutFrom, qsizetype(size));
        // What is stored is what was passed on: the kept text and the note with the original size.
        QCOMPARE(recorder.calls().size(), 1);
        QCOMPARE(recorder.calls().first().reply, r.content);
        const QStringList said = warnings.filter(QStringLiteral("over the %1 cap of %2").arg(name).arg(cap));
        QVERIFY2(said.size() == 1, qPrintable(warnings.join(u'\n')));
        QVERIFY(said.first().contains(QStringLiteral("the reply has %1 characters").arg(size)));
        if (stream) // nothing past the cap was shown live either
            QCOMPARE(done.streamed, big.left(cap));
    }
};

QTEST_GUILESS_MAIN(TestChatClientLimits)
#include "tst_chatclientlimits.moc"
