#include "benchcommand.h"

#include "evalbatch.h"
#include "model/kernelfile.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QTextStream>

int BenchCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(summary());
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("kernel"),
                                 QStringLiteral("The NKI kernel file (.py) defining kernel()."));
    parser.addOptions(
        {{QStringLiteral("task"), QStringLiteral("Task name (e.g. silu) or task folder."),
          QStringLiteral("TASK")},
         {QStringLiteral("dataset"), QStringLiteral("A dataset in the original NKIBench layout."),
          QStringLiteral("DIR")}});
    EvalBatch::addCommonOptions(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt bench")} + arguments)) {
        err << "accelopt bench: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (parser.positionalArguments().size() != 1) {
        err << "accelopt bench: give exactly one kernel file, e.g. accelopt bench my_silu.py --task silu\n";
        return 2;
    }
    const QString kernelPath = parser.positionalArguments().first();
    const KernelFile::ReadResult kernel = KernelFile::read(kernelPath);
    if (!kernel.ok) {
        err << "accelopt bench: " << kernel.error << "\n";
        return 2;
    }
    EvalBatch::Item item;
    QString error;
    if (!EvalBatch::taskReference(parser.value(QStringLiteral("task")),
                                  parser.value(QStringLiteral("dataset")), item.request.task, error) ||
        !EvalBatch::applyOptions(parser, item.request, error)) {
        err << "accelopt bench: " << error << "\n";
        return 2;
    }
    item.label = parser.value(QStringLiteral("task"));
    item.request.kernelSource = kernel.text;
    item.request.kernelName = QFileInfo(kernelPath).fileName();
    const QList<Evaluation> results = EvalBatch::run(parser, {item}, error);
    if (results.isEmpty()) {
        err << "accelopt bench: " << error << "\n";
        return 1;
    }
    EvalBatch::print({item}, results, parser.isSet(QStringLiteral("json")));
    return results.first().ok() ? 0 : 1;
}
