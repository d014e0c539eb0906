#include "evalbatch.h"

#include "model/taskcatalog.h"

#include "clilogging.h"
#include "common/datapaths.h"
#include "evalrun.h"
#include "hosts/hostregistry.h"
#include "model/targets.h"

#include <QCommandLineParser>
#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>

void EvalBatch::addCommonOptions(QCommandLineParser &parser)
{
    parser.addOptions({
        {QStringLiteral("host"),
         QStringLiteral("Host to run on (see 'accelopt hosts list'; default: local)."),
         QStringLiteral("NAME"), QStringLiteral("local")},
        {QStringLiteral("backend"),
         QStringLiteral("sim (nkisim) or neuron (real Trainium). Default: the host's."),
         QStringLiteral("BACKEND")},
        {QStringLiteral("target"), QStringLiteral("trn1, trn2 or trn3. Default: the host's."),
         QStringLiteral("TARGET")},
        {QStringLiteral("timing-only"), QStringLiteral("Skip the numerics: latency and profile only.")},
        {QStringLiteral("size"), QStringLiteral("Parameter set: full (NKIBench) or small (quick)."),
         QStringLiteral("SIZE"), QStringLiteral("full")},
        {QStringLiteral("timeout"),
         QStringLiteral(
             "Seconds one evaluation may take (default 600; a full-size numeric evaluation: 300 + 600 "
             "per correctness seed, as each seed runs the float64 reference and the kernel at full "
             "size)."),
         QStringLiteral("SECONDS")},
        {QStringLiteral("jobs"), QStringLiteral("Parallel slots on a local host (default: 2)."),
         QStringLiteral("N")},
        {QStringLiteral("seeds"),
         QStringLiteral("Correctness seeds, e.g. 1,2,3 (default: 3 fresh random ones)."),
         QStringLiteral("LIST")},
        {QStringLiteral("json"), QStringLiteral("Print one JSON object per task instead of a table.")},
    });
}

bool EvalBatch::applyOptions(const QCommandLineParser &parser, EvalRequest &request, QString &error)
{
    if (parser.isSet(QStringLiteral("backend")))
        request.backend = parser.value(QStringLiteral("backend"));
    if (parser.isSet(QStringLiteral("target")))
        request.target = parser.value(QStringLiteral("target"));
    if (request.backend != QStringLiteral("sim") && request.backend != QStringLiteral("neuron")) {
        error = QStringLiteral("--backend must be sim or neuron, not '%1'").arg(request.backend);
        return false;
    }
    if (!Targets::isKnown(request.target)) {
        error = QStringLiteral("--target must be %1, not '%2'").arg(Targets::listed(), request.target);
        return false;
    }
    request.size = parser.value(QStringLiteral("size"));
    if (request.size != QStringLiteral("full") && request.size != QStringLiteral("small")) {
        error = QStringLiteral("--size must be full or small, not '%1'").arg(request.size);
        return false;
    }
    bool ok = false;
    if (parser.isSet(QStringLiteral("jobs"))) {
        const int jobs = parser.value(QStringLiteral("jobs")).toInt(&ok);
        if (!ok || jobs < 1 || jobs > 64) {
            error = QStringLiteral("--jobs must be a whole number from 1 to 64, not '%1'")
                        .arg(parser.value(QStringLiteral("jobs")));
            return false;
        }
    }
    request.timingOnly = parser.isSet(QStringLiteral("timing-only"));
    request.seeds.clear();
    if (parser.isSet(QStringLiteral("seeds"))) {
        // No seed at all was read as "fresh random ones", the default: say so instead of running.
        if (parser.value(QStringLiteral("seeds")).split(u',', Qt::SkipEmptyParts).isEmpty()) {
            error = QStringLiteral("--seeds names no seed; give whole numbers separated by commas (e.g. "
                                   "1,2,3), or leave --seeds out for fresh random ones");
            return false;
        }
        for (const QString &part : parser.value(QStringLiteral("seeds")).split(u',', Qt::SkipEmptyParts)) {
            const int seed = part.trimmed().toInt(&ok);
            if (!ok || seed < 0) {
                error =
                    QStringLiteral("--seeds takes non-negative whole numbers separated by commas, not '%1'")
                        .arg(parser.value(QStringLiteral("seeds")));
                return false;
            }
            request.seeds.append(seed);
        }
    }
    if (parser.isSet(QStringLiteral("timeout"))) {
        if (!EvalRequest::parseTimeout(parser.value(QStringLiteral("timeout")), QStringLiteral("--timeout"),
                                       request.timeoutSeconds, error))
            return false;
    } else {
        request.timeoutSeconds = request.defaultTimeoutSeconds();
    }
    return true;
}

bool EvalBatch::taskReference(const QString &task, const QString &dataset, QJsonObject &out, QString &error)
{
    if (task.isEmpty()) {
        error = QStringLiteral("--task is required (a task name such as silu, or a task folder)");
        return false;
    }
    if (!dataset.isEmpty()) {
        if (!QFileInfo(dataset).isDir()) {
            error = QStringLiteral("--dataset %1 is not a folder").arg(dataset);
            return false;
        }
        out = {{QStringLiteral("dataset"), QFileInfo(dataset).absoluteFilePath()},
               {QStringLiteral("name"), task}};
        return true;
    }
    if (QFileInfo(task).isDir()) {
        out = {{QStringLiteral("dir"), QFileInfo(task).absoluteFilePath()}};
        return true;
    }
    // A name is looked up as the window does: the project's tasks above the current folder, the user's, then
    // the shipped ones. An unknown name is a usage error found before anything runs, not an infra_error row
    // from a runner started for nothing.
    const auto entry = TaskCatalog::find(task, DataPaths::tasksDir(), QDir::currentPath());
    if (!entry) {
        error = QStringLiteral(
                    "no task '%1' here; 'accelopt tasks list' shows the tasks this folder sees, or pass "
                    "a task folder")
                    .arg(task);
        return false;
    }
    out = entry->ref();
    return true;
}

bool EvalBatch::hostKnown(const QCommandLineParser &parser, QString &error)
{
    HostRegistry registry;
    HostConfig config;
    QString unreadable;
    const QString name = parser.value(QStringLiteral("host"));
    if (!registry.load(unreadable) || registry.find(name, config))
        return true;
    error = QStringLiteral("no host named '%1'; see 'accelopt hosts list'").arg(name);
    return false;
}

QList<Evaluation> EvalBatch::run(const QCommandLineParser &parser, const QList<Item> &items, QString &error,
                                 const std::function<void(int, const Evaluation &)> &finished)
{
    EvalRun run(EvalRun::settingsOf(parser));
    QList<Evaluation> results;
    QEventLoop loop;
    QObject::connect(&run, &EvalRun::hostTrouble,
                     [](const QString &message) { QTextStream(stderr) << "accelopt: " << message << "\n"; });
    QObject::connect(&run, &EvalRun::itemFinished, [&](int index, const Evaluation &evaluation) {
        if (finished)
            finished(index, evaluation);
        QTextStream(stderr) << "accelopt: " << items.at(index).label << ": " << evaluation.statusName() << "\n";
    });
    QObject::connect(&run, &EvalRun::finished, [&](const QList<Evaluation> &all) {
        results = all;
        loop.quit();
    });
    if (!run.start(items, error))
        return {};
    if (!run.isDone())
        loop.exec();
    return results;
}
