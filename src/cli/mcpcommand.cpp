#include "mcpcommand.h"

#include "clilogging.h"
#include "mcpsecrets.h"
#include "mcpserver.h"
#include "mcpsessions.h"
#include "mcpstdio.h"
#include "mcptools.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QTextStream>
#include <QTimer>

#include <csignal>

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
extern "C" void onMcpInterrupt(int)
{
    g_interrupted = 1;
}

const char *registration = R"({"mcpServers": {"accelopt": {"command": "accelopt", "args": ["mcp"]}}})";

QString instructions()
{
    return QStringLiteral(
        "AccelOpt Workbench: a timed simulator (nkisim) and verified benchmarks for AWS Trainium NKI kernels. "
        "tasks_list names the tasks; bench checks and times a kernel file on one (status, correctness, latency, % of "
        "the roofline peak, where the time goes, recommendations); compare diffs two kernels with their metric "
        "deltas; port moves a classic (neuronxcc.nki) kernel to the current nki API; memory_search finds lessons of "
        "earlier optimizations; optimize_start/optimize_follow/optimize_stop run an LLM-driven optimization session. "
        "Paths are files on the server's machine, absolute or relative to its working folder. Long calls send "
        "progress notifications when the request carries a progressToken.");
}

} // namespace

int McpCommand::run(const QStringList &arguments)
{
    McpSessions sessions;
    QList<McpTool> tools = McpTools::all() + sessions.tools();

    QCommandLineParser parser;
    QString toolText;
    for (const McpTool &t : std::as_const(tools))
        toolText += QStringLiteral("  %1  %2\n").arg(t.name.leftJustified(16), t.title);
    parser.setApplicationDescription(
        QStringLiteral("%1\n\nSpeaks MCP (revision %2: JSON-RPC 2.0, one message a line) on stdin and stdout; logs go "
                       "to stderr. Kernels run through the same runner and sandbox as 'accelopt bench'; the optimize "
                       "tools use the models of llm.json as 'accelopt optimize' does.\n\nTools:\n%3\nRegister it with an "
                       "MCP client (Claude Code, Kiro, ...):\n  %4")
            .arg(summary(), QLatin1String(McpServer::protocolVersion), toolText, QLatin1String(registration)));
    parser.addHelpOption();
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt mcp")} + arguments)) {
        err << "accelopt mcp: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        err << "accelopt mcp: unexpected argument '" << parser.positionalArguments().first()
            << "'; the server takes none (its clients call tools)\n";
        return 2;
    }

    McpStdio stdio;
    QString error;
    if (!stdio.open(error)) {
        err << "accelopt mcp: " << error << "\n";
        return 1;
    }
    // A client that goes away while a result is written must not kill the server with SIGPIPE: the write
    // fails, and stdin's end says the rest.
    std::signal(SIGPIPE, SIG_IGN);
    McpServer server;
    for (const McpTool &t : std::as_const(tools))
        server.addTool(t);
    server.setInstructions(instructions());
    server.setSecrets(McpSecrets::collect());
    QObject::connect(&server, &McpServer::outgoing, &stdio, &McpStdio::send);
    QObject::connect(&stdio, &McpStdio::lineReceived, &server, &McpServer::handleLine);
    QObject::connect(&stdio, &McpStdio::lineTooLong, &server, &McpServer::lineTooLong);

    // The end: stdin closed or a signal. Calls are cancelled, sessions stopped cleanly (resumable), then out.
    QEventLoop loop;
    bool ending = false;
    const auto end = [&](const char *why) {
        if (ending)
            return;
        ending = true;
        qCInfo(lcCli) << "mcp: ending:" << why;
        server.cancelAll();
        QObject::connect(&sessions, &McpSessions::idle, &loop, &QEventLoop::quit);
        sessions.stopAll();
    };
    QObject::connect(&stdio, &McpStdio::closed, &loop, [&] { end("stdin closed"); });
    g_interrupted = 0;
    auto previousInt = std::signal(SIGINT, onMcpInterrupt);
    auto previousTerm = std::signal(SIGTERM, onMcpInterrupt);
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (g_interrupted)
            end("interrupted");
    });
    poll.start(200);
    err << "accelopt mcp: serving " << tools.size() << " tools on stdio (MCP " << McpServer::protocolVersion << ")\n";
    err.flush();
    loop.exec();
    poll.stop();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    return 0;
}
