// What ChatClient refuses or cuts (issue 33): redirects (said, never followed) and replies over their
// role's cap. Against ScriptedLlmServer, a stand-in for a real model server on loopback.
#include "llm/chatclient.h"
#include "llm/memorycallrecorder.h"
#include "llm/replycaps.h"
#include "scriptedllmserver.h"

#include <QLoggingCategory>
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
        QObject::connect(client, &ChatClient::delta, this, [this](quint64, const QString &text) { streamed += text; });
    }
    bool waitFor(quint64 id) { return QTest::qWaitFor([&] { return replies.contains(id); }, 60000); }
};

ChatRequest ask(AgentRole role, bool stream = false)
{
    return {{ChatMessage::user(QStringLiteral("Say hi."))}, role, stream, QStringLiteral("test"), std::nullopt};
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

    void aRedirectSaysWhereAndIsNotFollowed_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("location");
        QTest::addColumn<QString>("says");
        QTest::newRow("301 to the new base") << 301 << QByteArray("https://models.example.com/v1/chat/completions")
                                             << "HTTP 301: the server redirects to https://models.example.com/v1/"
                                                "chat/completions; redirects are not followed (they would carry the "
                                                "API key elsewhere): set the endpoint's base URL to "
                                                "https://models.example.com/v1";
        QTest::newRow("308 relative") << 308 << QByteArray("/v2/chat/completions")
                                      << "HTTP 308: the server redirects to http://127.0.0.1:PORT/v2/chat/completions;"
                                         " redirects are not followed (they would carry the API key elsewhere): set "
                                         "the endpoint's base URL to http://127.0.0.1:PORT/v2";
        QTest::newRow("302 to a page") << 302 << QByteArray("https://login.example.com/")
                                       << "HTTP 302: the server redirects to https://login.example.com/; redirects "
                                          "are not followed (they would carry the API key elsewhere): put the final "
                                          "URL, up to and including /v1, in the endpoint's base URL";
        QTest::newRow("301 nowhere") << 301 << QByteArray()
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
            QStringLiteral("\n\n[AccelOpt cut this %1 reply here: it had %2 characters, over the cap of %3 for a "
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
