#include "optimizerig.h"
#include "runnergate.h"
#include "store/sessionstore.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <optional>

// `accelopt mcp` driven as an MCP client would: the real CLI binary as a child, JSON-RPC on its stdin and stdout,
// the local host with the real runner and nkisim, a gated host (RunnerGate) for "a call still running", and the
// stand-in model server (OptimizeRig) for an optimize session. Every wait is for a message, with a backstop.
namespace {

constexpr int backstopMs = 600000; // real evaluations: minutes on a loaded two-core machine, so a backstop only
const QString secret = QStringLiteral("sk-mcp-test-0123456789abcdef");

// The JSON Schema subset the server declares, checked here on its own (not with the server's code): type (a name
// or a list), enum, required, properties, additionalProperties: false, items, minimum, maximum.
bool hasType(const QJsonValue &v, const QString &t)
{
    if (t == QStringLiteral("object"))
        return v.isObject();
    if (t == QStringLiteral("array"))
        return v.isArray();
    if (t == QStringLiteral("string"))
        return v.isString();
    if (t == QStringLiteral("boolean"))
        return v.isBool();
    if (t == QStringLiteral("null"))
        return v.isNull();
    if (t == QStringLiteral("number"))
        return v.isDouble();
    if (t == QStringLiteral("integer"))
        return v.isDouble() && std::floor(v.toDouble()) == v.toDouble();
    return false;
}

void conform(const QJsonObject &schema, const QJsonValue &v, const QString &at, QStringList &errors)
{
    const QJsonValue type = schema.value(QStringLiteral("type"));
    QStringList types;
    if (type.isString())
        types << type.toString();
    for (const QJsonValue &t : type.toArray())
        types << t.toString();
    if (!types.isEmpty() && std::none_of(types.cbegin(), types.cend(), [&v](const QString &t) { return hasType(v, t); })) {
        errors << QStringLiteral("%1: not %2").arg(at, types.join(u'|'));
        return;
    }
    if (schema.contains(QStringLiteral("enum")) && !schema.value(QStringLiteral("enum")).toArray().contains(v))
        errors << QStringLiteral("%1: not in the enum").arg(at);
    if (v.isDouble() && schema.contains(QStringLiteral("minimum")) && v.toDouble() < schema.value(QStringLiteral("minimum")).toDouble())
        errors << QStringLiteral("%1: below the minimum").arg(at);
    if (v.isDouble() && schema.contains(QStringLiteral("maximum")) && v.toDouble() > schema.value(QStringLiteral("maximum")).toDouble())
        errors << QStringLiteral("%1: above the maximum").arg(at);
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
        for (const QJsonValue &r : schema.value(QStringLiteral("required")).toArray())
            if (!o.contains(r.toString()))
                errors << QStringLiteral("%1.%2: required, missing").arg(at, r.toString());
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (properties.contains(it.key()))
                conform(properties.value(it.key()).toObject(), it.value(), at + u'.' + it.key(), errors);
            else if (schema.value(QStringLiteral("additionalProperties")) == QJsonValue(false))
                errors << QStringLiteral("%1.%2: not declared").arg(at, it.key());
        }
    }
    if (v.isArray() && schema.value(QStringLiteral("items")).isObject()) {
        const QJsonArray a = v.toArray();
        for (qsizetype i = 0; i < a.size(); ++i)
            conform(schema.value(QStringLiteral("items")).toObject(), a.at(i), QStringLiteral("%1[%2]").arg(at).arg(i), errors);
    }
}

// A declared schema is itself well formed: every node has a type; an object's required names are properties.
void wellFormed(const QJsonObject &schema, const QString &at, QStringList &errors)
{
    if (!schema.contains(QStringLiteral("type")))
        errors << at + QStringLiteral(": no type");
    const QJsonObject properties = schema.value(QStringLiteral("properties")).toObject();
    for (const QJsonValue &r : schema.value(QStringLiteral("required")).toArray())
        if (!properties.contains(r.toString()))
            errors << QStringLiteral("%1: required '%2' is not a property").arg(at, r.toString());
    for (auto it = properties.begin(); it != properties.end(); ++it) {
        if (!it.value().isObject())
            errors << QStringLiteral("%1.%2: not a schema").arg(at, it.key());
        else
            wellFormed(it.value().toObject(), at + u'.' + it.key(), errors);
    }
    if (schema.value(QStringLiteral("items")).isObject())
        wellFormed(schema.value(QStringLiteral("items")).toObject(), at + QStringLiteral("[]"), errors);
}

// One server process and everything it said, in order.
class Client
{
public:
    QProcess process;
    QList<QJsonObject> messages;
    QStringList strays; // stdout lines that are not JSON-RPC messages: must stay empty
    QByteArray raw;     // all of stdout, to look for secrets in
    QByteArray pending;
    int nextId = 1;

    bool start(const QProcessEnvironment &env, const QString &folder)
    {
        process.setProcessEnvironment(env);
        process.setWorkingDirectory(folder);
        process.setProcessChannelMode(QProcess::ForwardedErrorChannel); // the server's log, in the test's
        QObject::connect(&process, &QProcess::readyReadStandardOutput, [this] { read(); });
        process.start(QStringLiteral(ACCELOPT_CLI_PATH), {QStringLiteral("mcp")});
        return process.waitForStarted(30000);
    }
    void read()
    {
        const QByteArray bytes = process.readAllStandardOutput();
        raw += bytes;
        pending += bytes;
        for (qsizetype nl; (nl = pending.indexOf('\n')) >= 0;) {
            const QByteArray line = pending.left(nl);
            pending.remove(0, nl + 1);
            const QJsonDocument doc = QJsonDocument::fromJson(line);
            if (doc.isObject() && doc.object().value(QStringLiteral("jsonrpc")) == QJsonValue(QStringLiteral("2.0")))
                messages << doc.object();
            else
                strays << QString::fromUtf8(line);
        }
    }
    void sendLine(const QByteArray &line) { process.write(line + '\n'); }
    void send(const QJsonObject &message) { sendLine(QJsonDocument(message).toJson(QJsonDocument::Compact)); }
    int request(const QString &method, const QJsonObject &params = {})
    {
        const int id = nextId++;
        QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id}, {QStringLiteral("method"), method}};
        if (!params.isEmpty())
            m.insert(QStringLiteral("params"), params);
        send(m);
        return id;
    }
    int call(const QString &tool, const QJsonObject &arguments, const QString &progressToken = {})
    {
        QJsonObject params{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}};
        if (!progressToken.isEmpty())
            params.insert(QStringLiteral("_meta"), QJsonObject{{QStringLiteral("progressToken"), progressToken}});
        return request(QStringLiteral("tools/call"), params);
    }
    int indexOf(int id) const
    {
        for (qsizetype i = 0; i < messages.size(); ++i)
            if (messages.at(i).value(QStringLiteral("id")) == QJsonValue(id) && !messages.at(i).contains(QStringLiteral("method")))
                return int(i);
        return -1;
    }
    // The response to `id`, once it came (empty when the backstop or the process's end came first).
    QJsonObject response(int id, int timeoutMs = backstopMs)
    {
        (void)QTest::qWaitFor([&] { return indexOf(id) >= 0 || process.state() == QProcess::NotRunning; }, timeoutMs);
        read();
        return indexOf(id) >= 0 ? messages.at(indexOf(id)) : QJsonObject{};
    }
    QList<QJsonObject> progress(const QString &token) const
    {
        QList<QJsonObject> found;
        for (const QJsonObject &m : messages)
            if (m.value(QStringLiteral("method")).toString() == QStringLiteral("notifications/progress") &&
                m.value(QStringLiteral("params")).toObject().value(QStringLiteral("progressToken")).toString() == token)
                found << m.value(QStringLiteral("params")).toObject();
        return found;
    }
    bool initialize()
    {
        const QJsonObject r = response(request(QStringLiteral("initialize"),
                                               {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                                {QStringLiteral("capabilities"), QJsonObject{}},
                                                {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("tst_cli_mcp")},
                                                                                          {QStringLiteral("version"), QStringLiteral("1")}}}}));
        send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});
        return r.value(QStringLiteral("result")).toObject().value(QStringLiteral("protocolVersion")).toString() == QStringLiteral("2025-06-18");
    }
    // Closes stdin, as a client that is done does; the server ends by itself. Its exit status, or -1.
    int finish()
    {
        process.closeWriteChannel();
        (void)QTest::qWaitFor([&] { return process.state() == QProcess::NotRunning; }, backstopMs);
        read();
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(10000);
            return -1;
        }
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    }
};

QJsonObject result(const QJsonObject &response)
{
    return response.value(QStringLiteral("result")).toObject();
}
int errorCode(const QJsonObject &response)
{
    return response.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt();
}
QString text(const QJsonObject &response)
{
    QString all;
    for (const QJsonValue &c : result(response).value(QStringLiteral("content")).toArray())
        all += c.toObject().value(QStringLiteral("text")).toString();
    return all;
}
bool isError(const QJsonObject &response)
{
    return result(response).value(QStringLiteral("isError")).toBool();
}
QJsonObject structured(const QJsonObject &response)
{
    return result(response).value(QStringLiteral("structuredContent")).toObject();
}

} // namespace

class TestCliMcp : public QObject
{
    Q_OBJECT

    OptimizeRig m_rig;
    OptimizeRig::Workspace m_w;
    QTemporaryDir m_dir;
    QHash<QString, QJsonObject> m_outputSchemas; // by tool, from tools/list
    bool m_holdModels = false;                   // every model call hangs: the search can go no further

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = m_rig.environment(m_w);
        env.insert(QStringLiteral("MCP_TEST_API_KEY"), secret); // a secret the server must never send back
        return env;
    }
    bool open(Client &c)
    {
        return c.start(environment(), m_dir.path()) && c.initialize();
    }
    QString write(const QString &name, const QByteArray &text)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly))
            return {};
        f.write(text);
        return f.fileName();
    }
    // A successful or failed tool result: its structuredContent, when there is one, matches the tool's output
    // schema, and its text carries no secret.
    void checkResult(const QString &tool, const QJsonObject &response)
    {
        QVERIFY2(response.contains(QStringLiteral("result")), qPrintable(QJsonDocument(response).toJson()));
        QVERIFY(result(response).value(QStringLiteral("content")).isArray());
        QVERIFY(!text(response).isEmpty());
        QVERIFY(result(response).value(QStringLiteral("isError")).isBool());
        if (!result(response).contains(QStringLiteral("structuredContent")))
            return;
        QStringList errors;
        conform(m_outputSchemas.value(tool), structured(response), tool, errors);
        QVERIFY2(errors.isEmpty(), qPrintable(errors.join(u'\n')));
    }
    static QString siluBaseline() { return QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"); }

private Q_SLOTS:
    void initTestCase()
    {
        QString error;
        QVERIFY2(m_rig.start(error), qPrintable(error));
        m_rig.useAgents(m_rig.swiglu);
        m_rig.writeLlmConfig(m_w);
        m_rig.fault = [this](const ScriptedLlmServer::Request &) -> std::optional<ScriptedLlmServer::Response> {
            if (!m_holdModels)
                return std::nullopt;
            ScriptedLlmServer::Response hang;
            hang.hang = true;
            return hang;
        };
        Client c;
        QVERIFY(open(c));
        const QJsonObject tools = c.response(c.request(QStringLiteral("tools/list")));
        for (const QJsonValue &t : result(tools).value(QStringLiteral("tools")).toArray())
            m_outputSchemas.insert(t.toObject().value(QStringLiteral("name")).toString(),
                                   t.toObject().value(QStringLiteral("outputSchema")).toObject());
        QCOMPARE(c.finish(), 0);
    }

    void helpListsTheToolsAndHowToRegister()
    {
        QProcess p;
        p.start(QStringLiteral(ACCELOPT_CLI_PATH), {QStringLiteral("mcp"), QStringLiteral("--help")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        for (const char *tool : {"bench", "compare", "port", "memory_search", "tasks_list", "optimize_start",
                                 "optimize_follow", "optimize_stop"})
            QVERIFY2(out.contains(QLatin1String(tool)), tool);
        QVERIFY(out.contains(QStringLiteral("\"mcpServers\"")));
        p.start(QStringLiteral(ACCELOPT_CLI_PATH), {QStringLiteral("mcp"), QStringLiteral("extra")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
    }

    void lifecycleAndProtocolErrors()
    {
        Client c;
        QVERIFY(c.start(environment(), m_dir.path()));
        // Before initialize: ping is fine, anything else is refused.
        QVERIFY(result(c.response(c.request(QStringLiteral("ping")))).isEmpty());
        QJsonObject r = c.response(c.request(QStringLiteral("tools/list")));
        QCOMPARE(errorCode(r), -32600);
        QVERIFY2(r.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().contains(
                     QStringLiteral("initialize")),
                 qPrintable(QJsonDocument(r).toJson()));
        r = c.response(c.request(QStringLiteral("initialize"), {{QStringLiteral("capabilities"), QJsonObject{}}}));
        QCOMPARE(errorCode(r), -32602); // no protocolVersion

        r = c.response(c.request(QStringLiteral("initialize"),
                                 {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                                  {QStringLiteral("capabilities"), QJsonObject{}},
                                  {QStringLiteral("clientInfo"), QJsonObject{{QStringLiteral("name"), QStringLiteral("t")},
                                                                            {QStringLiteral("version"), QStringLiteral("1")}}}}));
        const QJsonObject init = result(r);
        QCOMPARE(init.value(QStringLiteral("protocolVersion")).toString(), QStringLiteral("2025-06-18"));
        QCOMPARE(init.value(QStringLiteral("capabilities")).toObject().value(QStringLiteral("tools")).toObject().value(
                     QStringLiteral("listChanged")),
                 QJsonValue(false));
        QCOMPARE(init.value(QStringLiteral("serverInfo")).toObject().value(QStringLiteral("name")).toString(), QStringLiteral("accelopt"));
        QVERIFY(!init.value(QStringLiteral("serverInfo")).toObject().value(QStringLiteral("version")).toString().isEmpty());
        c.send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), QStringLiteral("notifications/initialized")}});

        // A malformed line, a batch, a message without "jsonrpc", an unknown method, an unknown tool, arguments
        // that break the schema: each a JSON-RPC error, and the server goes on.
        const qsizetype before = c.messages.size();
        c.sendLine("{\"jsonrpc\": \"2.0\", \"id\": 77, \"method\": ");
        QVERIFY(QTest::qWaitFor([&] { return c.messages.size() > before; }, backstopMs));
        QCOMPARE(errorCode(c.messages.at(before)), -32700);
        QVERIFY(c.messages.at(before).value(QStringLiteral("id")).isNull());
        const qsizetype beforeBatch = c.messages.size();
        c.sendLine("[{\"jsonrpc\": \"2.0\", \"id\": 78, \"method\": \"ping\"}]");
        QVERIFY(QTest::qWaitFor([&] { return c.messages.size() > beforeBatch; }, backstopMs));
        QCOMPARE(errorCode(c.messages.at(beforeBatch)), -32600);
        c.send({{QStringLiteral("id"), 79}, {QStringLiteral("method"), QStringLiteral("ping")}});
        QCOMPARE(errorCode(c.response(79)), -32600);
        QCOMPARE(errorCode(c.response(c.request(QStringLiteral("resources/list")))), -32601);
        r = c.response(c.call(QStringLiteral("no_such_tool"), {}));
        QCOMPARE(errorCode(r), -32602);
        QVERIFY(r.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().contains(QStringLiteral("no_such_tool")));
        const struct
        {
            const char *tool;
            QJsonObject arguments;
            const char *says;
        } bad[] = {
            {"bench", {}, "kernel is required"},
            {"bench", {{QStringLiteral("kernel"), 3}}, "kernel must be string"},
            {"bench", {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("size"), QStringLiteral("huge")}}, "size must be one of"},
            {"bench", {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("seeds"), QJsonArray{1, -2}}}, "seeds[1]"},
            {"bench", {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("colour"), QStringLiteral("red")}}, "colour"},
            {"compare", {{QStringLiteral("a"), siluBaseline()}}, "b is required"},
            {"port", {{QStringLiteral("kernel"), siluBaseline()}}, "task is required"},
            {"memory_search", {{QStringLiteral("limit"), 0}}, "at least 1"},
            {"tasks_list", {{QStringLiteral("near"), 5}}, "near must be string"},
            {"optimize_start", {{QStringLiteral("iterations"), -1}}, "iterations must be at least 0"},
            {"optimize_start", {{QStringLiteral("preset"), QStringLiteral("warp")}}, "preset must be one of"},
            {"optimize_follow", {}, "session is required"},
            {"optimize_follow", {{QStringLiteral("session"), QStringLiteral("abc")}, {QStringLiteral("wait"), QStringLiteral("forever")}}, "wait must be one of"},
            {"optimize_stop", {{QStringLiteral("session"), QString()}}, "must not be empty"},
        };
        for (const auto &b : bad) {
            r = c.response(c.call(QLatin1String(b.tool), b.arguments));
            QVERIFY2(errorCode(r) == -32602, qPrintable(QJsonDocument(r).toJson()));
            QVERIFY2(r.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString().contains(QLatin1String(b.says)),
                     qPrintable(QJsonDocument(r).toJson()));
        }
        QVERIFY(result(c.response(c.request(QStringLiteral("ping")))).isEmpty());
        QCOMPARE(c.finish(), 0);
        QVERIFY2(c.strays.isEmpty(), qPrintable(c.strays.join(u'\n')));
    }

    void toolsListDeclaresValidSchemas()
    {
        Client c;
        QVERIFY(open(c));
        const QJsonArray tools = result(c.response(c.request(QStringLiteral("tools/list")))).value(QStringLiteral("tools")).toArray();
        QStringList names;
        for (const QJsonValue &v : tools) {
            const QJsonObject t = v.toObject();
            const QString name = t.value(QStringLiteral("name")).toString();
            names << name;
            QVERIFY2(!t.value(QStringLiteral("description")).toString().isEmpty(), qPrintable(name));
            const QJsonObject input = t.value(QStringLiteral("inputSchema")).toObject();
            QCOMPARE(input.value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            QStringList errors;
            wellFormed(input, name + QStringLiteral(".input"), errors);
            // Every tool declares what it returns, as an object (structuredContent is one).
            const QJsonObject output = t.value(QStringLiteral("outputSchema")).toObject();
            QVERIFY2(!output.isEmpty(), qPrintable(name));
            QCOMPARE(output.value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            wellFormed(output, name + QStringLiteral(".output"), errors);
            QVERIFY2(errors.isEmpty(), qPrintable(errors.join(u'\n')));
        }
        QCOMPARE(names, (QStringList{QStringLiteral("bench"), QStringLiteral("compare"), QStringLiteral("port"),
                                     QStringLiteral("memory_search"), QStringLiteral("tasks_list"),
                                     QStringLiteral("optimize_start"), QStringLiteral("optimize_follow"),
                                     QStringLiteral("optimize_stop")}));
        QCOMPARE(c.finish(), 0);
    }

    void catalogToolsAndCompare()
    {
        Client c;
        QVERIFY(open(c));
        QJsonObject r = c.response(c.call(QStringLiteral("tasks_list"), {}));
        checkResult(QStringLiteral("tasks_list"), r);
        QVERIFY(!isError(r));
        QStringList names;
        for (const QJsonValue &t : structured(r).value(QStringLiteral("tasks")).toArray())
            names << t.toObject().value(QStringLiteral("name")).toString();
        QVERIFY2(names.contains(QStringLiteral("silu")) && names.contains(QStringLiteral("swiglu")), qPrintable(names.join(u',')));
        r = c.response(c.call(QStringLiteral("tasks_list"), {{QStringLiteral("near"), m_dir.filePath(QStringLiteral("nowhere"))}}));
        checkResult(QStringLiteral("tasks_list"), r);
        QVERIFY(isError(r));

        r = c.response(c.call(QStringLiteral("memory_search"), {{QStringLiteral("query"), QStringLiteral("tile")}}));
        checkResult(QStringLiteral("memory_search"), r);
        QVERIFY(!isError(r));
        QCOMPARE(structured(r).value(QStringLiteral("count")).toInt(), 0); // a memory that does not exist yet is empty
        QVERIFY(!QFile::exists(m_w.memory()));                              // and looking did not create it

        // Two files without a task: the diff, and why there are no deltas.
        const QString current = QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline_current.py");
        r = c.response(c.call(QStringLiteral("compare"), {{QStringLiteral("a"), siluBaseline()}, {QStringLiteral("b"), current}}));
        checkResult(QStringLiteral("compare"), r);
        QVERIFY(!isError(r));
        QVERIFY(!structured(r).value(QStringLiteral("identical")).toBool());
        QVERIFY(!structured(r).value(QStringLiteral("hunks")).toArray().isEmpty());
        QVERIFY(structured(r).value(QStringLiteral("deltas")).isNull());
        r = c.response(c.call(QStringLiteral("compare"), {{QStringLiteral("a"), siluBaseline()},
                                                          {QStringLiteral("b"), m_dir.filePath(QStringLiteral("missing.py"))}}));
        checkResult(QStringLiteral("compare"), r);
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("missing.py")), qPrintable(text(r)));
        QCOMPARE(c.finish(), 0);
        QVERIFY2(c.strays.isEmpty(), qPrintable(c.strays.join(u'\n')));
    }

    void benchGoodAndBadKernels()
    {
        Client c;
        QVERIFY(open(c));
        // A missing file, an unknown task, a secret in what would be echoed: tool errors, not protocol errors.
        QJsonObject r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), m_dir.filePath(QStringLiteral("missing.py"))},
                                                                    {QStringLiteral("task"), QStringLiteral("silu")}}));
        checkResult(QStringLiteral("bench"), r);
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("missing.py")), qPrintable(text(r)));
        r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("no_such_task")}}));
        checkResult(QStringLiteral("bench"), r);
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("no task 'no_such_task'")), qPrintable(text(r)));
        r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), m_dir.filePath(secret + QStringLiteral(".py"))},
                                                        {QStringLiteral("task"), QStringLiteral("silu")}}));
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("[redacted]")), qPrintable(text(r)));
        r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                        {QStringLiteral("host"), QStringLiteral("nowhere")}}));
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("no host named 'nowhere'")), qPrintable(text(r)));

        // A kernel that does not compile: an error result that still carries its evaluation, with the line.
        const QString broken = write(QStringLiteral("broken.py"), "import neuronxcc.nki.language as nl\n\ndef kernel(x):\n    return nl.load(x[\n");
        r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), broken}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                        {QStringLiteral("size"), QStringLiteral("small")}}));
        checkResult(QStringLiteral("bench"), r);
        QVERIFY(isError(r));
        QCOMPARE(structured(r).value(QStringLiteral("status")).toString(), QStringLiteral("compile_error"));
        QVERIFY2(structured(r).value(QStringLiteral("error")).toString().contains(QStringLiteral("line")), qPrintable(text(r)));

        // A good kernel: as bench --json, with the profile summary and the recommendations.
        r = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                        {QStringLiteral("size"), QStringLiteral("small")}, {QStringLiteral("seeds"), QJsonArray{1, 2}}}));
        checkResult(QStringLiteral("bench"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        const QJsonObject e = structured(r);
        QCOMPARE(e.value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
        QVERIFY(e.value(QStringLiteral("correct")).toBool());
        QVERIFY(e.value(QStringLiteral("latency_ms")).toDouble() > 0);
        QVERIFY(e.value(QStringLiteral("percent_of_peak")).toDouble() > 0);
        QCOMPARE(e.value(QStringLiteral("profile")).toObject().value(QStringLiteral("source")).toString(), QStringLiteral("nkisim"));
        QVERIFY(!e.value(QStringLiteral("profile")).toObject().value(QStringLiteral("hottest_lines")).toArray().isEmpty());
        QVERIFY(e.value(QStringLiteral("recommendations")).isArray());
        // The text carries the same JSON, for clients that read only content.
        QVERIFY(text(r).contains(QStringLiteral("\"latency_ms\"")));
        QCOMPARE(c.finish(), 0);
        QVERIFY2(c.strays.isEmpty(), qPrintable(c.strays.join(u'\n')));
        QVERIFY2(!c.raw.contains(secret.toUtf8()), "a secret reached the client");
    }

    void portToolPortsTheClassicBaseline()
    {
        Client c;
        QVERIFY(open(c));
        const QString out = m_dir.filePath(QStringLiteral("silu_port.py"));
        QJsonObject r = c.response(c.call(QStringLiteral("port"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                                   {QStringLiteral("no_model"), true}, {QStringLiteral("out"), out}},
                                          QStringLiteral("port")));
        checkResult(QStringLiteral("port"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        QVERIFY(structured(r).value(QStringLiteral("ported")).toBool());
        QCOMPARE(structured(r).value(QStringLiteral("by")).toString(), QStringLiteral("rules"));
        QVERIFY(structured(r).value(QStringLiteral("kernel")).toString().startsWith(QStringLiteral("import nki")));
        QCOMPARE(structured(r).value(QStringLiteral("written")).toString(), out);
        QVERIFY(QFile::exists(out));
        QVERIFY(!c.progress(QStringLiteral("port")).isEmpty());
        // Never over an existing file; an unknown task.
        r = c.response(c.call(QStringLiteral("port"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                       {QStringLiteral("out"), out}}));
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("exists")), qPrintable(text(r)));
        r = c.response(c.call(QStringLiteral("port"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("no_such_task")}}));
        QVERIFY(isError(r));
        QCOMPARE(c.finish(), 0);
    }

    void aLongBenchSendsProgress()
    {
        // The silu baseline at full size: the runner's work takes a while, and the call says so on the way.
        Client c;
        QVERIFY(open(c));
        const int id = c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")}},
                              QStringLiteral("full-silu"));
        const QJsonObject r = c.response(id);
        checkResult(QStringLiteral("bench"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        const QList<QJsonObject> progress = c.progress(QStringLiteral("full-silu"));
        QVERIFY2(progress.size() >= 2, "no progress before the result");
        double last = 0;
        for (const QJsonObject &p : progress) {
            QVERIFY(p.value(QStringLiteral("progress")).toDouble() > last); // increasing, as the protocol wants
            last = p.value(QStringLiteral("progress")).toDouble();
            QVERIFY(!p.value(QStringLiteral("message")).toString().isEmpty());
        }
        // All of them before the result.
        for (qsizetype i = c.indexOf(id); i < c.messages.size(); ++i)
            QVERIFY(c.messages.at(i).value(QStringLiteral("method")).toString() != QStringLiteral("notifications/progress") ||
                    c.messages.at(i).value(QStringLiteral("params")).toObject().value(QStringLiteral("progressToken")).toString() != QStringLiteral("full-silu"));
        QCOMPARE(c.finish(), 0);
    }

    void callsRunConcurrentlyAndCanBeCancelled()
    {
        // A bench on a host whose runner holds its result: the call is mid-flight on any machine. ping and
        // tools/list are answered meanwhile; a cancelled call is never answered.
        QTemporaryDir dir;
        RunnerGate gate(dir.filePath(QStringLiteral("gate")));
        QProcess hosts;
        hosts.setProcessEnvironment(environment());
        hosts.start(QStringLiteral(ACCELOPT_CLI_PATH), {QStringLiteral("hosts"), QStringLiteral("add"), QStringLiteral("gated"),
                                                        QStringLiteral("--local"), QStringLiteral("--python"), gate.interpreter()});
        QVERIFY(hosts.waitForFinished(60000));
        QVERIFY2(hosts.exitCode() == 0, hosts.readAllStandardError().constData());

        Client c;
        QVERIFY(open(c));
        const int held = c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()}, {QStringLiteral("task"), QStringLiteral("silu")},
                                                          {QStringLiteral("size"), QStringLiteral("small")}, {QStringLiteral("host"), QStringLiteral("gated")}},
                                  QStringLiteral("held"));
        QTRY_VERIFY_WITH_TIMEOUT(!gate.holders().isEmpty(), backstopMs);
        QVERIFY(result(c.response(c.request(QStringLiteral("ping")))).isEmpty());
        QVERIFY(!result(c.response(c.request(QStringLiteral("tools/list")))).value(QStringLiteral("tools")).toArray().isEmpty());
        QCOMPARE(c.indexOf(held), -1);
        c.send({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("method"), QStringLiteral("notifications/cancelled")},
                {QStringLiteral("params"), QJsonObject{{QStringLiteral("requestId"), held}, {QStringLiteral("reason"), QStringLiteral("test")}}}});
        gate.open();
        // The server goes on: another evaluation on the same gated host ends and is answered; the cancelled one
        // never is, up to the server's exit.
        const QJsonObject after = c.response(c.call(QStringLiteral("bench"), {{QStringLiteral("kernel"), siluBaseline()},
                                                                              {QStringLiteral("task"), QStringLiteral("silu")},
                                                                              {QStringLiteral("size"), QStringLiteral("small")},
                                                                              {QStringLiteral("host"), QStringLiteral("gated")}}));
        QVERIFY2(!isError(after), qPrintable(text(after)));
        QCOMPARE(c.indexOf(held), -1);
        QCOMPARE(c.finish(), 0);
        QCOMPARE(c.indexOf(held), -1);
    }

    void anOptimizeSessionIsStartedFollowedAndStopped()
    {
        Client c;
        QVERIFY(open(c));
        // Bad starts: an unknown task, a kernel file that is not there.
        QJsonObject r = c.response(c.call(QStringLiteral("optimize_start"), {{QStringLiteral("task"), QStringLiteral("no_such_task")}}));
        checkResult(QStringLiteral("optimize_start"), r);
        QVERIFY(isError(r));
        QVERIFY2(text(r).contains(QStringLiteral("no_such_task")), qPrintable(text(r)));
        r = c.response(c.call(QStringLiteral("optimize_start"), {{QStringLiteral("task"), QStringLiteral("swiglu")},
                                                                 {QStringLiteral("kernel"), m_dir.filePath(QStringLiteral("missing.py"))}}));
        QVERIFY(isError(r));
        r = c.response(c.call(QStringLiteral("optimize_follow"), {{QStringLiteral("session"), QStringLiteral("0123abcd")}}));
        checkResult(QStringLiteral("optimize_follow"), r);
        QVERIFY(isError(r));

        m_holdModels = false;
        r = c.response(c.call(QStringLiteral("optimize_start"),
                              {{QStringLiteral("task"), QStringLiteral("swiglu")}, {QStringLiteral("size"), QStringLiteral("small")},
                               {QStringLiteral("beam_width"), 2}, {QStringLiteral("plans"), 3}, {QStringLiteral("samples"), 1},
                               {QStringLiteral("iterations"), 2}, {QStringLiteral("fix_rounds"), 1}, {QStringLiteral("seed"), 11}}));
        checkResult(QStringLiteral("optimize_start"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        const QString session = structured(r).value(QStringLiteral("session")).toString();
        QVERIFY(!session.isEmpty());
        QCOMPARE(structured(r).value(QStringLiteral("status")).toString(), QStringLiteral("running"));

        // Figures now, then at the end of the first iteration.
        r = c.response(c.call(QStringLiteral("optimize_follow"), {{QStringLiteral("session"), session.left(8)}}));
        checkResult(QStringLiteral("optimize_follow"), r);
        QCOMPARE(structured(r).value(QStringLiteral("session")).toString(), session);
        const int follow = c.call(QStringLiteral("optimize_follow"), {{QStringLiteral("session"), session}, {QStringLiteral("wait"), QStringLiteral("iteration")}},
                                  QStringLiteral("follow"));
        QVERIFY(QTest::qWaitFor([&] { return c.indexOf(follow) >= 0 || c.process.state() == QProcess::NotRunning; }, backstopMs));
        m_holdModels = true; // from here no model answers: the second iteration cannot end before the stop
        r = c.response(follow);
        checkResult(QStringLiteral("optimize_follow"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        const QJsonObject figures = structured(r);
        QCOMPARE(figures.value(QStringLiteral("status")).toString(), QStringLiteral("running"));
        QCOMPARE(figures.value(QStringLiteral("iterations_done")).toInt(), 1);
        QVERIFY(figures.value(QStringLiteral("candidates")).toInt() > 1);
        QVERIFY(figures.value(QStringLiteral("baseline_latency_ms")).toDouble() > 0);
        QVERIFY(figures.value(QStringLiteral("best_latency_ms")).toDouble() > 0);
        QVERIFY(figures.value(QStringLiteral("best_speedup")).toDouble() >= 1.0);
        QVERIFY(figures.value(QStringLiteral("cost_usd")).toDouble() > 0);
        QVERIFY(!c.progress(QStringLiteral("follow")).isEmpty());

        // A clean stop: answered once stopped, resumable.
        r = c.response(c.call(QStringLiteral("optimize_stop"), {{QStringLiteral("session"), session}}));
        checkResult(QStringLiteral("optimize_stop"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        QCOMPARE(structured(r).value(QStringLiteral("status")).toString(), QStringLiteral("stopped"));
        QCOMPARE(structured(r).value(QStringLiteral("stop_reason")).toString(), QStringLiteral("stopped"));
        QCOMPARE(structured(r).value(QStringLiteral("resume_with")).toString(), QStringLiteral("accelopt resume ") + session.left(8));
        r = c.response(c.call(QStringLiteral("optimize_follow"), {{QStringLiteral("session"), session}, {QStringLiteral("wait"), QStringLiteral("end")}}));
        QCOMPARE(structured(r).value(QStringLiteral("status")).toString(), QStringLiteral("stopped")); // ended: answered at once

        // What the session left behind, through the other tools: the lessons of its first iteration, and its best
        // candidate by id (candidates bring their evaluations, so compare has deltas).
        r = c.response(c.call(QStringLiteral("memory_search"), {{QStringLiteral("task"), QStringLiteral("swiglu")}}));
        checkResult(QStringLiteral("memory_search"), r);
        QVERIFY2(structured(r).value(QStringLiteral("count")).toInt() > 0, qPrintable(text(r)));
        const QString best = figures.value(QStringLiteral("best_candidate")).toString();
        r = c.response(c.call(QStringLiteral("compare"), {{QStringLiteral("a"), best.left(8)}, {QStringLiteral("b"), best}}));
        checkResult(QStringLiteral("compare"), r);
        QVERIFY2(!isError(r), qPrintable(text(r)));
        QVERIFY(structured(r).value(QStringLiteral("identical")).toBool());
        QVERIFY(structured(r).value(QStringLiteral("deltas")).isArray());
        QCOMPARE(structured(r).value(QStringLiteral("left")).toObject().value(QStringLiteral("candidate")).toString(), best);
        QCOMPARE(c.finish(), 0);
        m_holdModels = false;
        QVERIFY2(c.strays.isEmpty(), qPrintable(c.strays.join(u'\n')));
        QVERIFY2(!c.raw.contains(secret.toUtf8()), "a secret reached the client");

        SessionStore store(m_w.db());
        QVERIFY(store.open());
        QCOMPARE(store.session(session)->status, SessionRecord::Status::Stopped);
        QCOMPARE(store.session(session)->stopReason, QStringLiteral("stopped"));
    }

    void closingStdinStopsARunningSession()
    {
        // The client goes away mid-search: the session is stopped cleanly (resumable), and the server ends.
        Client c;
        QVERIFY(open(c));
        m_holdModels = true; // the search waits on its first model call until the end
        const QJsonObject r = c.response(c.call(QStringLiteral("optimize_start"),
                                                {{QStringLiteral("task"), QStringLiteral("swiglu")}, {QStringLiteral("size"), QStringLiteral("small")},
                                                 {QStringLiteral("preset"), QStringLiteral("interactive")}, {QStringLiteral("iterations"), 1}}));
        QVERIFY2(!isError(r), qPrintable(text(r)));
        const QString session = structured(r).value(QStringLiteral("session")).toString();
        QCOMPARE(c.finish(), 0);
        m_holdModels = false;
        SessionStore store(m_w.db());
        QVERIFY(store.open());
        QCOMPARE(store.session(session)->status, SessionRecord::Status::Stopped);
    }
};

QTEST_GUILESS_MAIN(TestCliMcp)
#include "tst_cli_mcp.moc"
