#include "benchcommand.h"

#include "common/datapaths.h"
#include "evalbatch.h"
#include "export/taskdetector.h"
#include "model/kernelfile.h"
#include "profile/chrometrace.h"
#include "resulttable.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QTextStream>

void BenchCommand::addOptions(QCommandLineParser &parser)
{
    parser.addPositionalArgument(
        QStringLiteral("kernel"),
        QStringLiteral("The NKI kernel file (.py); its @nki.jit function is the kernel."));
    parser.addOptions(
        {{QStringLiteral("task"),
          QStringLiteral(
              "Task name (silu, or one of yours: accelopt tasks list) or task folder (default: the "
              "task the file belongs to)."),
          QStringLiteral("TASK")},
         {QStringLiteral("dataset"), QStringLiteral("A dataset in the original NKIBench layout."),
          QStringLiteral("DIR")},
         {QStringLiteral("trace"),
          QStringLiteral("Write the instruction timeline as Chrome trace-event JSON (opens in Perfetto and "
                         "chrome://tracing)."),
          QStringLiteral("FILE")},
         {QStringLiteral("trace-cap"),
          QStringLiteral("Instructions the trace keeps, from the first (default 200000)."),
          QStringLiteral("N"), QStringLiteral("200000")},
         {QStringLiteral("explain"),
          QStringLiteral("After the result, say which modelled effects make up nkisim's estimate "
                         "(per-instruction overhead, DMA row size, stalls on dependencies, PSUM operands). "
                         "With --json the result's \"explain\" object holds the same.")}});
    EvalBatch::addCommonOptions(parser);
}

int BenchCommand::prepare(const QCommandLineParser &parser, EvalBatch::Item &item, QString &error,
                          QString &note)
{
    if (parser.positionalArguments().size() != 1) {
        error = QStringLiteral("give exactly one kernel file, e.g. accelopt bench my_silu.py --task silu");
        return 2;
    }
    const QString kernelPath = parser.positionalArguments().first();
    const KernelFile::ReadResult kernel = KernelFile::read(kernelPath);
    if (!kernel.ok) {
        error = kernel.error;
        return 2;
    }
    QString taskName = parser.value(QStringLiteral("task"));
    const bool detected = taskName.isEmpty() && !parser.isSet(QStringLiteral("dataset"));
    if (detected) {
        // As F5 in the window: the task folder the file is in, the user task made from it, an exported
        // kernel's header, or a dataset's kernels/ folder.
        const auto found = TaskDetector::detect(QFileInfo(kernelPath).absoluteFilePath(), kernel.text,
                                                DataPaths::tasksDir());
        if (!found) {
            error = QStringLiteral("%1 belongs to no task this program can see; give --task NAME (accelopt "
                                   "tasks list), or make one from it: accelopt task new NAME --kernel %1 "
                                   "--reference REF.py")
                        .arg(kernelPath);
            return 2;
        }
        note = QStringLiteral("task: ") + found->how;
        item.request.task = found->ref;
        taskName = found->name;
    }
    if ((!detected &&
         !EvalBatch::taskReference(parser.value(QStringLiteral("task")),
                                   parser.value(QStringLiteral("dataset")), item.request.task, error)) ||
        !EvalBatch::applyOptions(parser, item.request, error) || !EvalBatch::hostKnown(parser, error))
        return 2;
    item.label = taskName;
    item.request.kernelSource = kernel.text;
    item.request.kernelName = QFileInfo(kernelPath).fileName();
    return 0;
}

int BenchCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    parser.addHelpOption();
    addOptions(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt bench")} + arguments)) {
        err << "accelopt bench: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    EvalBatch::Item item;
    QString error;
    QString note;
    const int status = prepare(parser, item, error, note);
    if (!note.isEmpty())
        err << "accelopt bench: " << note << "\n";
    if (status != 0) {
        err << "accelopt bench: " << error << "\n";
        return status;
    }
    const QString tracePath = parser.value(QStringLiteral("trace"));
    if (tracePath.isEmpty() && parser.isSet(QStringLiteral("trace-cap"))) { // it was ignored without a word
        err << "accelopt bench: --trace-cap limits the --trace file; give --trace FILE too\n";
        return 2;
    }
    if (!tracePath.isEmpty()) {
        bool ok = false;
        item.request.timelineCap = parser.value(QStringLiteral("trace-cap")).toInt(&ok);
        if (!ok || item.request.timelineCap < 1 || item.request.timelineCap > 1000000) {
            err << "accelopt bench: --trace-cap wants a whole number from 1 to 1000000\n";
            return 2;
        }
        if (const QFileInfo dir(QFileInfo(tracePath).absolutePath()); !dir.isDir()) {
            err << "accelopt bench: --trace " << tracePath << ": the folder " << dir.filePath()
                << " does not exist\n";
            return 2;
        }
        if (QFileInfo(tracePath).isDir()) { // found only after the evaluation, when writing
            err << "accelopt bench: --trace " << tracePath << " is a folder; give a file name, e.g. "
                << QDir(tracePath).filePath(QStringLiteral("trace.json")) << "\n";
            return 2;
        }
    }
    ResultTable table(parser.isSet(QStringLiteral("json")));
    const QList<Evaluation> results =
        EvalBatch::run(parser, {item}, error, [&](int, const Evaluation &e) { table.add(item.label, e); });
    if (results.isEmpty()) {
        err << "accelopt bench: " << error << "\n";
        return 1;
    }
    table.finish();
    const Evaluation &result = results.first();
    if (parser.isSet(QStringLiteral("explain")) && result.ok() && !parser.isSet(QStringLiteral("json"))) {
        if (result.profile && result.profile->explanation)
            QTextStream(stdout) << "\n" << result.profile->explanation->text();
        else
            err << "accelopt bench: no explanation: "
                << (result.profile ? QStringLiteral("the %1 profile has none (nkisim's estimates have one)")
                                         .arg(result.profile->source)
                                   : QStringLiteral("the host's runner sent no profile"))
                << "\n";
    }
    if (!tracePath.isEmpty() && result.ok()) {
        if (!result.profile || !result.profile->timeline) {
            const QString why = result.profile ? result.profile->missing.value(QStringLiteral("timeline"))
                                               : QStringLiteral("the host's runner sent no profile");
            err << "accelopt bench: no timeline to write to " << tracePath << ": "
                << (why.isEmpty() ? QStringLiteral("the host sent none") : why) << "\n";
            return 1;
        }
        if (!ChromeTrace::write(tracePath, *result.profile->timeline, item.request.kernelName, error)) {
            err << "accelopt bench: " << error << "\n";
            return 1;
        }
        err << "accelopt bench: wrote " << result.profile->timeline->count() << " instructions"
            << (result.profile->timeline->truncated ? " (the first ones; raise --trace-cap for more)" : "")
            << " to " << tracePath << "\n";
    }
    return result.ok() ? 0 : 1;
}
