#include "optimizecommand.h"

#include "common/datapaths.h"
#include "evalbatch.h"
#include "export/taskdetector.h"
#include "model/kernelfile.h"
#include "model/targets.h"
#include "model/tasksources.h"
#include "searchconsole.h"
#include "searchoptions.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

void OptimizeCommand::addOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("task"),
         QStringLiteral(
             "Task name (silu, or one of yours: accelopt tasks list) or task folder (default: the task "
             "the --kernel file belongs to)."),
         QStringLiteral("TASK")},
        {QStringLiteral("dataset"), QStringLiteral("A dataset in the original NKIBench layout."),
         QStringLiteral("DIR")},
        {QStringLiteral("kernel"), QStringLiteral("Start from this kernel instead of the task's baseline."),
         QStringLiteral("FILE")},
        {QStringLiteral("backend"),
         QStringLiteral("sim (nkisim) or neuron (real Trainium). Default: the host's."),
         QStringLiteral("BACKEND")},
        {QStringLiteral("target"), QStringLiteral("trn1, trn2 or trn3. Default: the host's."),
         QStringLiteral("TARGET")},
        {QStringLiteral("size"), QStringLiteral("Parameter set: full (NKIBench) or small (quick)."),
         QStringLiteral("SIZE"), QStringLiteral("full")},
        {QStringLiteral("timeout"), QStringLiteral("Seconds one evaluation may take (default 600)."),
         QStringLiteral("SECONDS"), QStringLiteral("600")},
    });
    SearchConsole::addOptions(parser);
    SearchOptions::add(parser);
}

int OptimizeCommand::prepare(const QCommandLineParser &parser, SearchTask &task, SearchConfig &config,
                             SearchConsole::Options &options, QString &error, QString &note)
{
    auto usage = [&error](const QString &message) {
        error = message;
        return 2;
    };
    if (!parser.positionalArguments().isEmpty())
        return usage(QStringLiteral("unexpected argument '%1'; the task goes in --task")
                         .arg(parser.positionalArguments().first()));

    if (!parser.isSet(QStringLiteral("task")) && !parser.isSet(QStringLiteral("dataset")) &&
        parser.isSet(QStringLiteral("kernel"))) {
        // As Optimize in the window: the task the kernel file belongs to.
        const QString kernelPath = parser.value(QStringLiteral("kernel"));
        const KernelFile::ReadResult kernel = KernelFile::read(kernelPath);
        if (!kernel.ok)
            return usage(kernel.error);
        const auto found = TaskDetector::detect(QFileInfo(kernelPath).absoluteFilePath(), kernel.text,
                                                DataPaths::tasksDir());
        if (!found)
            return usage(
                QStringLiteral("%1 belongs to no task this program can see; give --task NAME (accelopt "
                               "tasks list), or make one from it: accelopt task new NAME --kernel %1 "
                               "--reference REF.py")
                    .arg(kernelPath));
        note = QStringLiteral("task: ") + found->how;
        task.ref = found->ref;
    } else if (!EvalBatch::taskReference(parser.value(QStringLiteral("task")),
                                         parser.value(QStringLiteral("dataset")), task.ref, error))
        return usage(error);
    const std::optional<TaskSources> sources = TaskSources::load(task.ref, DataPaths::tasksDir(), error);
    if (!sources)
        return usage(error);
    task.name = sources->name;
    task.reference = sources->reference;
    task.kernel = sources->kernel;
    if (parser.isSet(QStringLiteral("kernel"))) {
        const KernelFile::ReadResult kernel = KernelFile::read(parser.value(QStringLiteral("kernel")));
        if (!kernel.ok)
            return usage(kernel.error);
        task.kernel = kernel.text;
    }
    task.backend = parser.value(QStringLiteral("backend"));
    task.target = parser.value(QStringLiteral("target"));
    if (!task.backend.isEmpty() && task.backend != QStringLiteral("sim") &&
        task.backend != QStringLiteral("neuron"))
        return usage(QStringLiteral("--backend must be sim or neuron, not '%1'").arg(task.backend));
    if (!task.target.isEmpty() && !Targets::isKnown(task.target))
        return usage(QStringLiteral("--target must be %1, not '%2'").arg(Targets::listed(), task.target));
    task.size = parser.value(QStringLiteral("size"));
    if (task.size != QStringLiteral("full") && task.size != QStringLiteral("small"))
        return usage(QStringLiteral("--size must be full or small, not '%1'").arg(task.size));
    if (!EvalRequest::parseTimeout(parser.value(QStringLiteral("timeout")), QStringLiteral("--timeout"),
                                   task.evalTimeoutSeconds, error))
        return usage(error);

    bool changed = false;
    if (!SearchOptions::apply(parser, config, changed, error))
        return usage(error);
    if (!SearchConsole::readOptions(parser, options, error))
        return usage(error);
    return 0;
}

int OptimizeCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    parser.addHelpOption();
    addOptions(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt optimize")} + arguments)) {
        err << "accelopt optimize: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    SearchTask task;
    SearchConfig config;
    SearchConsole::Options options;
    QString error;
    QString note;
    const int status = prepare(parser, task, config, options, error, note);
    if (!note.isEmpty())
        err << "accelopt optimize: " << note << "\n";
    if (status != 0) {
        err << "accelopt optimize: " << error << "\n";
        return status;
    }
    SearchConsole run(options);
    return run.start(task, config);
}
