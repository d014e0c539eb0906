#include "taskcommand.h"

#include "console.h"
#include "hostchoice.h"
#include "subcommandparser.h"
#include "taskcheckreport.h"

#include "common/datapaths.h"
#include "hosts/host.h"
#include "model/kernelfile.h"
#include "model/kernelfunctions.h"
#include "model/tasklocations.h"
#include "search/taskcreation.h"

#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>

#include <memory>

namespace {

int usage(const QString &sub, const QString &message)
{
    SubcommandParser::err() << "accelopt task " << sub << ": " << message << "\n";
    return 2;
}

// The task check and the baseline runs need the task's files, so they run on this machine, with nkisim.
std::unique_ptr<Host> localHost(QString &error)
{
    HostConfig config;
    return std::unique_ptr<Host>(HostChoice::create(QStringLiteral("local"), 1, config, error));
}

// Inputs the kernel file states (its parameters, with the shapes its comments or asserts give).
bool inputsFromKernel(const KernelFunctions::Function &fn, const QString &source,
                      QList<TaskDraft::Input> &inputs, QString &error)
{
    const auto hints = KernelFunctions::shapeHints(source);
    for (const QString &p : fn.parameters) {
        const auto it = hints.constFind(p);
        if (it == hints.constEnd() || it->shape.isEmpty()) {
            error = QStringLiteral("the kernel file does not state the shape of '%1'; give every input with "
                                   "--input NAME=SHAPE[:DTYPE], e.g. --input %1=256x2048:float32")
                        .arg(p);
            return false;
        }
        TaskDraft::Input in;
        in.name = p;
        in.shape = it->shape;
        if (!it->dtype.isEmpty())
            in.dtype = it->dtype;
        inputs << in;
    }
    return true;
}

bool looksLikePyTorch(const QString &reference)
{
    return reference.contains(QStringLiteral("nn.Module")) &&
           reference.contains(QStringLiteral("class Model"));
}

} // namespace

int TaskCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    if (sub == QStringLiteral("new"))
        return create(arguments.mid(1));
    if (sub == QStringLiteral("check"))
        return check(arguments.mid(1));
    if (sub.isEmpty() || sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        QTextStream(sub.isEmpty() ? stderr : stdout)
            << "Usage: accelopt task new|check ...\n"
               "  new NAME --kernel K.py --reference R.py [--input x=256x2048:float32 ...]\n"
               "      [--small x=64x512 ...] [--rel-tol T] [--function F] [--out DIR | --user]\n"
               "                  make a task folder from your kernel and reference, after checking it\n"
               "  check DIR [--function F]\n"
               "                  check a task folder: the reference, its shapes, the baseline at both "
               "sizes\n"
               "See 'accelopt task new --help' and README.md, \"Optimize your own kernel\".\n";
        return sub.isEmpty() ? 2 : 0;
    }
    SubcommandParser::err() << "accelopt task: unknown subcommand '" << sub << "' (new, check)\n";
    return 2;
}

int TaskCommand::create(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("name"),
                                 QStringLiteral("The task's name (letters, digits, _, -)."));
    parser.addOptions(
        {{QStringLiteral("kernel"), QStringLiteral("Your kernel file: the task's baseline."),
          QStringLiteral("K.py")},
         {QStringLiteral("reference"),
          QStringLiteral("The reference: numpy forward(*inputs), or a PyTorch class Model(nn.Module)."),
          QStringLiteral("R.py")},
         {QStringLiteral("input"),
          QStringLiteral(
              "An input at the full size, NAME=SHAPE[:DTYPE] (default: what the kernel file states)."),
          QStringLiteral("SPEC")},
         {QStringLiteral("small"), QStringLiteral("An input's shape at the small size, NAME=SHAPE."),
          QStringLiteral("SPEC")},
         {QStringLiteral("rel-tol"), QStringLiteral("Allowed L2 relative error (default 2e-5)."),
          QStringLiteral("T")},
         {QStringLiteral("function"), QStringLiteral("The kernel function, when the file has several."),
          QStringLiteral("F")},
         {QStringLiteral("description"), QStringLiteral("One line saying what the task computes."),
          QStringLiteral("TEXT")},
         {QStringLiteral("out"),
          QStringLiteral("The tasks folder to create the task in (default: the project's .accelopt/tasks)."),
          QStringLiteral("DIR")},
         {QStringLiteral("user"), QStringLiteral("Create it in your own tasks folder (%1).")
                                      .arg(QDir::toNativeSeparators(TaskLocations::userTasksDir()))}});
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt task new"), arguments, status))
        return status;
    const QString sub = QStringLiteral("new");
    if (parser.positionalArguments().size() != 1)
        return usage(sub, QStringLiteral("give the task's name, e.g. accelopt task new row_softmax --kernel "
                                         "row_softmax.py --reference ref.py"));
    TaskDraft draft;
    draft.name = parser.positionalArguments().first();
    QString error;
    if (!TaskDraft::validName(draft.name, error))
        return usage(sub, error);
    if (!parser.isSet(QStringLiteral("kernel")) || !parser.isSet(QStringLiteral("reference")))
        return usage(sub, QStringLiteral("--kernel K.py and --reference R.py are both required"));
    if (parser.isSet(QStringLiteral("out")) && parser.isSet(QStringLiteral("user")))
        return usage(sub, QStringLiteral("--out and --user both say where the task goes; give one"));
    const QString kernelPath = parser.value(QStringLiteral("kernel"));
    const KernelFile::ReadResult kernel = KernelFile::read(kernelPath);
    if (!kernel.ok)
        return usage(sub, QStringLiteral("--kernel: %1").arg(kernel.error));
    const KernelFile::ReadResult reference = KernelFile::read(parser.value(QStringLiteral("reference")));
    if (!reference.ok)
        return usage(sub, QStringLiteral("--reference: %1").arg(reference.error));
    const auto fn = KernelFunctions::pick(kernel.text, parser.value(QStringLiteral("function")), error);
    if (!fn)
        return usage(sub, QStringLiteral("%1: %2").arg(kernelPath, error));
    draft.function = fn->name;
    draft.kernelSource = kernel.text;
    draft.referenceSource = reference.text;
    draft.kernelFile = QFileInfo(kernelPath).absoluteFilePath();
    draft.description = parser.value(QStringLiteral("description"));
    for (const QString &spec : parser.values(QStringLiteral("input"))) {
        TaskDraft::Input in;
        if (!TaskDraft::parseInput(spec, in, error))
            return usage(sub, error);
        draft.inputs << in;
    }
    // A PyTorch reference builds its own inputs (get_inputs()); a numpy one needs the shapes.
    if (draft.inputs.isEmpty() && !looksLikePyTorch(reference.text) &&
        !inputsFromKernel(*fn, kernel.text, draft.inputs, error))
        return usage(sub, error);
    for (const QString &spec : parser.values(QStringLiteral("small")))
        if (!draft.applySmall(spec, error))
            return usage(sub, error);
    if (parser.isSet(QStringLiteral("rel-tol"))) {
        bool ok = false;
        draft.relTol = parser.value(QStringLiteral("rel-tol")).toDouble(&ok);
        if (!ok || !(draft.relTol > 0 && draft.relTol < 1))
            return usage(sub, QStringLiteral("--rel-tol takes a number in (0, 1), e.g. 2e-5, not '%1'")
                                  .arg(parser.value(QStringLiteral("rel-tol"))));
    }
    if (!draft.validate(error))
        return usage(sub, error);
    const QString parent = parser.isSet(QStringLiteral("out")) ? parser.value(QStringLiteral("out"))
                           : parser.isSet(QStringLiteral("user"))
                               ? TaskLocations::userTasksDir()
                               : TaskLocations::newProjectTasksDir(kernelPath);

    std::unique_ptr<Host> host = localHost(error);
    if (!host) {
        SubcommandParser::err() << "accelopt task new: " << error << "\n";
        return 1;
    }
    TaskCreation creation(host.get());
    QTextStream &err = SubcommandParser::err();
    QObject::connect(&creation, &TaskCreation::progress, [&err](const QString &message) {
        err << "accelopt task new: " << message << "\n";
        err.flush();
    });
    TaskCreation::Result result;
    QEventLoop loop;
    QObject::connect(&creation, &TaskCreation::finished, [&](const TaskCreation::Result &r) {
        result = r;
        loop.quit();
    });
    creation.start(draft, QFileInfo(parent).absoluteFilePath(), DataPaths::tasksDir(), kernelPath);
    loop.exec();
    QTextStream &out = Console::out();
    TaskCheckReport::print(result.check.checks.isEmpty() ? err : out, result.check);
    if (!result.ok) {
        err << "accelopt task new: not created. " << result.error << "\n";
        return 1;
    }
    out << "created " << QDir::toNativeSeparators(result.folder) << "\n"
        << "benchmark it:  accelopt bench " << kernelPath << " --task " << draft.name << "\n"
        << "optimize it:   accelopt optimize --task " << draft.name << "\n";
    return 0;
}

int TaskCommand::check(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("dir"), QStringLiteral("The task folder."));
    parser.addOptions(
        {{QStringLiteral("function"), QStringLiteral("The kernel function, when the file has several."),
          QStringLiteral("F")},
         {QStringLiteral("kernel"), QStringLiteral("Check this kernel instead of the task's baseline."),
          QStringLiteral("K.py")}});
    int status = 0;
    if (!SubcommandParser::parse(parser, QStringLiteral("accelopt task check"), arguments, status))
        return status;
    const QString sub = QStringLiteral("check");
    if (parser.positionalArguments().size() != 1)
        return usage(sub, QStringLiteral(
                              "give one task folder, e.g. accelopt task check .accelopt/tasks/row_softmax"));
    const QFileInfo dir(parser.positionalArguments().first());
    if (!dir.isDir() ||
        !QFileInfo::exists(QDir(dir.absoluteFilePath()).filePath(QStringLiteral("task.json"))))
        return usage(sub,
                     QStringLiteral("%1 is not a task folder (it holds no task.json)").arg(dir.filePath()));
    QString kernelText;
    if (parser.isSet(QStringLiteral("kernel"))) {
        const KernelFile::ReadResult kernel = KernelFile::read(parser.value(QStringLiteral("kernel")));
        if (!kernel.ok)
            return usage(sub, QStringLiteral("--kernel: %1").arg(kernel.error));
        kernelText = kernel.text;
    }
    const TaskCheck::Result result =
        TaskCheckReport::run(dir.absoluteFilePath(), kernelText, parser.value(QStringLiteral("function")));
    TaskCheckReport::print(Console::out(), result);
    if (!result.ok) {
        SubcommandParser::err() << "accelopt task check: " << dir.filePath() << " fails its check. "
                                << result.error << "\n";
        return 1;
    }
    Console::out() << dir.filePath() << " passes its check\n";
    return 0;
}
