// How long `accelopt models list` takes over a large llm.json (issue 33: 15 s for 100,000 endpoints, from a
// quadratic duplicate-name check). Prints the CLI's wall time, end to end, and the in-process parts (load,
// problems) for N endpoints (default 100,000; argv[1] sets it). Asserts nothing about the figures.
#include "llm/llmconfig.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTextStream>

#include <cstdlib>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    const int count = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100000;
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("llm.json"));
    QByteArray text = R"({"version": 1, "endpoints": [)";
    for (int i = 0; i < count; ++i)
        text += QStringLiteral(
                    R"(%1{"name": "endpoint-%2", "base_url": "http://127.0.0.1:9/v1", "model": "m%2"})")
                    .arg(i ? QStringLiteral(",") : QString())
                    .arg(i)
                    .toUtf8();
    text += R"(], "roles": {"planner": [{"endpoint": "endpoint-0"}]}})";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        return 1;
    f.close();

    QTextStream out(stdout);
    QElapsedTimer clock;
    clock.start();
    QString error;
    const auto config = LlmConfig::load(path, &error);
    const double loadS = clock.nsecsElapsed() / 1e9;
    if (!config) {
        out << "cannot load: " << error << "\n";
        return 1;
    }
    clock.restart();
    const QStringList problems = config->problems();
    const double problemsS = clock.nsecsElapsed() / 1e9;

    QProcess cli;
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.setStandardOutputFile(QProcess::nullDevice());
    clock.restart();
    cli.start(QStringLiteral(ACCELOPT_CLI_PATH),
              {QStringLiteral("models"), QStringLiteral("list"), QStringLiteral("--config"), path});
    cli.waitForFinished(-1);
    const double cliS = clock.nsecsElapsed() / 1e9;

    out << QStringLiteral(
               "models list, %1 endpoints (%2 MB of llm.json): accelopt models list %3 s (exit %4); "
               "in process: load %5 s, problems %6 s (%7 found)\n")
               .arg(count)
               .arg(text.size() / 1e6, 0, 'f', 1)
               .arg(cliS, 0, 'f', 3)
               .arg(cli.exitCode())
               .arg(loadS, 0, 'f', 3)
               .arg(problemsS, 0, 'f', 3)
               .arg(problems.size());
    return 0;
}
