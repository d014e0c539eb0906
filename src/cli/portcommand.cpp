#include "portcommand.h"

#include "console.h"
#include "evalbatch.h"
#include "hostchoice.h"
#include "hosts/host.h"
#include "model/kernelfile.h"
#include "port/kernelport.h"

#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QSaveFile>
#include <QTextStream>

#include <memory>

void PortCommand::addOptions(QCommandLineParser &parser)
{
    parser.addPositionalArgument(QStringLiteral("kernel"), QStringLiteral("The classic NKI kernel file (.py)."));
    parser.addOptions(
        {{QStringLiteral("task"), QStringLiteral("Task name (e.g. silu) or task folder: its inputs and tolerance."),
          QStringLiteral("TASK")},
         {QStringLiteral("dataset"), QStringLiteral("A dataset in the original NKIBench layout."),
          QStringLiteral("DIR")},
         {QStringLiteral("out"),
          QStringLiteral("Where to write the port (default: KERNEL_current.py beside the kernel; never over an "
                         "existing file)."),
          QStringLiteral("FILE")},
         {QStringLiteral("candidate"),
          QStringLiteral("Check this current-API file as the port instead of porting (e.g. one written by hand)."),
          QStringLiteral("FILE")},
         {QStringLiteral("no-model"), QStringLiteral("Rules only: never ask the executor model.")},
         {QStringLiteral("size"), QStringLiteral("Parameter set the check runs: small (default) or full."),
          QStringLiteral("SIZE"), QStringLiteral("small")},
         {QStringLiteral("seeds"), QStringLiteral("Seeds of the check, e.g. 1,2 (default: 2 fresh ones)."),
          QStringLiteral("LIST")},
         {QStringLiteral("llm-config"), QStringLiteral("LLM settings file (default: the user's llm.json)."),
          QStringLiteral("FILE")}});
}

int PortCommand::prepare(const QCommandLineParser &parser, KernelPort::Request &request, QString &outPath,
                         QString &error, bool defaultOut)
{
    if (parser.positionalArguments().size() != 1) {
        error = QStringLiteral("give exactly one kernel file, e.g. accelopt port my_silu.py --task silu");
        return 2;
    }
    const QString kernelPath = parser.positionalArguments().first();
    const KernelFile::ReadResult kernel = KernelFile::read(kernelPath);
    if (!kernel.ok) {
        error = kernel.error;
        return 2;
    }
    request.kernel = kernel.text;
    if (!EvalBatch::taskReference(parser.value(QStringLiteral("task")), parser.value(QStringLiteral("dataset")),
                                  request.task, error))
        return 2;
    request.size = parser.value(QStringLiteral("size"));
    if (request.size != QStringLiteral("small") && request.size != QStringLiteral("full")) {
        error = QStringLiteral("--size must be small or full, not '%1'").arg(request.size);
        return 2;
    }
    if (parser.isSet(QStringLiteral("seeds")))
        for (const QString &part : parser.value(QStringLiteral("seeds")).split(u',', Qt::SkipEmptyParts)) {
            bool ok = false;
            const int seed = part.trimmed().toInt(&ok);
            if (!ok || seed < 0) {
                error = QStringLiteral("--seeds takes non-negative whole numbers separated by commas, not '%1'")
                            .arg(parser.value(QStringLiteral("seeds")));
                return 2;
            }
            request.seeds << seed;
        }
    if (parser.isSet(QStringLiteral("candidate"))) {
        const KernelFile::ReadResult candidate = KernelFile::read(parser.value(QStringLiteral("candidate")));
        if (!candidate.ok) {
            error = QStringLiteral("--candidate: %1").arg(candidate.error);
            return 2;
        }
        request.candidate = candidate.text;
    }
    request.useModel = !parser.isSet(QStringLiteral("no-model"));
    request.llmConfig = parser.value(QStringLiteral("llm-config"));
    const QFileInfo source(kernelPath);
    outPath = parser.isSet(QStringLiteral("out")) ? parser.value(QStringLiteral("out"))
              : defaultOut ? source.dir().filePath(source.completeBaseName() + QStringLiteral("_current.py"))
                           : QString();
    if (outPath.isEmpty())
        return 0;
    if (QFileInfo::exists(outPath)) {
        error = QStringLiteral("%1 exists; give --out a new file name").arg(outPath);
        return 2;
    }
    if (!QFileInfo(QFileInfo(outPath).absolutePath()).isDir()) {
        error = QStringLiteral("--out %1: the folder does not exist").arg(outPath);
        return 2;
    }
    return 0;
}

bool PortCommand::write(const QString &outPath, const QString &kernel, QString &error)
{
    QSaveFile file(outPath);
    if (!file.open(QIODevice::WriteOnly) || file.write(kernel.toUtf8()) < 0 || !file.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(outPath, file.errorString());
        return false;
    }
    return true;
}

int PortCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    parser.addHelpOption();
    addOptions(parser);
    QTextStream &err = Console::err();
    QTextStream &out = Console::out();
    const auto usage = [&err](const QString &message) {
        err << "accelopt port: " << message << "\n";
        err.flush();
        return 2;
    };
    if (!parser.parse(QStringList{QStringLiteral("accelopt port")} + arguments))
        return usage(parser.errorText());
    if (parser.isSet(QStringLiteral("help"))) {
        out << parser.helpText();
        return 0;
    }
    KernelPort::Request request;
    QString outPath;
    QString error;
    if (prepare(parser, request, outPath, error, true) != 0)
        return usage(error);

    // nkisim decides equality: the local host, whatever the kernel will run on later.
    HostConfig config;
    std::unique_ptr<Host> host(HostChoice::create(QStringLiteral("local"), 1, config, error));
    if (!host) {
        err << "accelopt port: " << error << "\n";
        return 1;
    }
    KernelPort port(host.get());
    QEventLoop loop;
    KernelPort::Result result;
    QObject::connect(&port, &KernelPort::progress, [&err](const QString &message) {
        err << "accelopt port: " << message << "\n";
        err.flush();
    });
    QObject::connect(&port, &KernelPort::finished, [&](const KernelPort::Result &r) {
        result = r;
        loop.quit();
    });
    port.start(request);
    loop.exec();

    if (!result.ok) {
        err << "accelopt port: not ported. " << result.error << "\n";
        if (!result.kernel.isEmpty())
            err << "(the unequal port is not written; run with --no-model to see the rules' own attempt)\n";
        err.flush();
        return 1;
    }
    if (!write(outPath, result.kernel, error)) {
        err << "accelopt port: " << error << "\n";
        return 1;
    }
    const QJsonObject &equal = result.equal;
    QStringList seeds;
    for (const QJsonValue &s : equal.value(QStringLiteral("seeds")).toArray())
        seeds << QString::number(s.toInteger());
    out << "ported by " << result.by
        << (result.rules.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(result.rules.join(QStringLiteral(", "))))
        << "\nequal on nkisim: relative L2 difference " << equal.value(QStringLiteral("l2_rel_diff")).toDouble()
        << " within " << equal.value(QStringLiteral("rel_tol")).toDouble() << " on seeds " << seeds.join(u',')
        << " (" << request.size << " size)\nwrote " << outPath << "\n";
    return 0;
}
