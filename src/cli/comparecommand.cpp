#include "comparecommand.h"

#include "diff/kerneldiff.h"
#include "diff/metricdeltas.h"
#include "evalbatch.h"
#include "model/kernelfile.h"
#include "store/sessionstore.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <algorithm>
#include <optional>

namespace {

using Side = CompareCommand::Side;

// False with `error` and the exit `status`: 2 for an argument that names nothing, 1 for a workspace database
// that cannot be opened (no usage error: the command line is fine).
bool resolve(const QString &arg, std::optional<SessionStore> &store, Side &side, QString &error, int &status)
{
    status = 2;
    if (QFileInfo::exists(arg)) {
        const KernelFile::ReadResult file = KernelFile::read(arg);
        if (!file.ok) {
            error = file.error;
            return false;
        }
        side.name = arg;
        side.text = file.text;
        return true;
    }
    if (!store) {
        const QString path = SessionStore::defaultPath();
        if (!QFileInfo::exists(path)) {
            error = QStringLiteral("%1 is not a file, and there is no workspace database (%2) to find it as a "
                                   "candidate in")
                        .arg(arg, path);
            return false;
        }
        store.emplace(path);
        if (!store->open()) {
            error = store->lastError();
            store.reset();
            status = 1;
            return false;
        }
    }
    const std::optional<Candidate> c = store->findCandidate(arg);
    if (!c) {
        error = QStringLiteral("%1 is neither a file nor a candidate of the workspace: %2").arg(arg, store->lastError());
        return false;
    }
    side.name = QStringLiteral("candidate %1 (session %2, iteration %3)")
                    .arg(c->id.left(8), c->sessionId.left(8))
                    .arg(c->iteration);
    side.text = c->source;
    side.candidateId = c->id;
    side.sessionId = c->sessionId;
    side.evaluation = store->evaluation(c->id);
    return true;
}

QJsonObject sideJson(const Side &s)
{
    QJsonObject o{{QStringLiteral("name"), s.name}};
    if (!s.candidateId.isEmpty()) {
        o.insert(QStringLiteral("candidate"), s.candidateId);
        o.insert(QStringLiteral("session"), s.sessionId);
    }
    if (s.evaluation)
        o.insert(QStringLiteral("evaluation"), s.evaluation->summaryJson(QString()));
    return o;
}

} // namespace

void CompareCommand::addOptions(QCommandLineParser &parser)
{
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("The slower or older kernel."));
    parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("The faster or newer kernel."));
    parser.addOptions({{QStringLiteral("task"), QStringLiteral("Benchmark file kernels on this task."),
                        QStringLiteral("TASK")},
                       {QStringLiteral("dataset"), QStringLiteral("A dataset in the original NKIBench layout."),
                        QStringLiteral("DIR")},
                       {QStringLiteral("context"), QStringLiteral("Unchanged lines around each change (default 3)."),
                        QStringLiteral("N"), QStringLiteral("3")}});
    EvalBatch::addCommonOptions(parser);
}

int CompareCommand::prepare(const QCommandLineParser &parser, Comparison &c, QString &error)
{
    if (parser.positionalArguments().size() != 2) {
        error = QStringLiteral("give two kernels, e.g. accelopt compare slow.py fast.py --task silu");
        return 2;
    }
    bool ok = false;
    c.context = parser.value(QStringLiteral("context")).toInt(&ok);
    if (!ok || c.context < 0 || c.context > 10000) {
        error = QStringLiteral("--context wants a whole number from 0 to 10000, not '%1'")
                    .arg(parser.value(QStringLiteral("context")));
        return 2;
    }
    std::optional<SessionStore> store;
    for (int i = 0; i < 2; ++i)
        if (int status = 2; !resolve(parser.positionalArguments().at(i), store, c.sides[i], error, status))
            return status;
    c.taskGiven = parser.isSet(QStringLiteral("task"));
    // Files get their evaluations from a host when the task is known; candidates keep the ones they have.
    if (!c.taskGiven)
        return 0;
    for (int i = 0; i < 2; ++i) {
        if (c.sides[i].evaluation)
            continue;
        EvalBatch::Item item;
        if (!EvalBatch::taskReference(parser.value(QStringLiteral("task")), parser.value(QStringLiteral("dataset")),
                                      item.request.task, error) ||
            !EvalBatch::applyOptions(parser, item.request, error))
            return 2;
        item.label = QFileInfo(c.sides[i].name).fileName();
        item.request.kernelSource = c.sides[i].text;
        item.request.kernelName = item.label;
        c.items << item;
        c.benchmarked << i;
    }
    return 0;
}

void CompareCommand::Comparison::takeResults(const QList<Evaluation> &results)
{
    for (int k = 0; k < benchmarked.size() && k < results.size(); ++k)
        sides[benchmarked.at(k)].evaluation = results.at(k);
}

QStringList CompareCommand::Comparison::missing() const
{
    // Deltas need two measured kernels; otherwise say which side is missing what.
    QStringList why;
    for (const Side &s : sides) {
        if (!s.evaluation)
            why << QStringLiteral("%1 has no evaluation").arg(s.name);
        else if (!s.evaluation->ok())
            why << QStringLiteral("%1: %2%3")
                       .arg(s.name, s.evaluation->statusName(),
                            s.evaluation->error.isEmpty()
                                ? QString()
                                : QStringLiteral(" (%1)").arg(s.evaluation->error.section(u'\n', 0, 0)));
    }
    return why;
}

bool CompareCommand::Comparison::benchmarkFailed() const
{
    // A benchmark asked for here that did not measure is a failure of the command, as for `accelopt bench`.
    return std::any_of(benchmarked.cbegin(), benchmarked.cend(),
                       [this](int i) { return !sides[i].evaluation || !sides[i].evaluation->ok(); });
}

QJsonObject CompareCommand::Comparison::toJson() const
{
    const KernelDiff::Result diff = KernelDiff::compute(sides[0].text, sides[1].text);
    const QStringList why = missing();
    const bool measured = why.isEmpty();
    QJsonObject o = diff.toJson(context);
    o.insert(QStringLiteral("left"), sideJson(sides[0]));
    o.insert(QStringLiteral("right"), sideJson(sides[1]));
    o.insert(QStringLiteral("deltas"),
             measured ? QJsonValue(MetricDeltas::toJson(MetricDeltas::compute(*sides[0].evaluation,
                                                                              *sides[1].evaluation)))
                      : QJsonValue());
    if (!measured)
        o.insert(QStringLiteral("no_deltas_because"), why.join(QStringLiteral("; ")));
    return o;
}

int CompareCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        summary() + QStringLiteral("\nA and B are kernel files or candidate ids of the workspace (the first "
                                   "characters are enough). Candidates bring their evaluations; files are "
                                   "benchmarked when --task is given. Then the metric deltas follow the diff."));
    parser.addHelpOption();
    addOptions(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt compare")} + arguments)) {
        err << "accelopt compare: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    Comparison c;
    QString error;
    if (const int status = prepare(parser, c, error); status != 0) {
        err << "accelopt compare: " << error << "\n";
        return status;
    }
    if (!c.items.isEmpty()) {
        const QList<Evaluation> results = EvalBatch::run(parser, c.items, error);
        if (results.isEmpty()) {
            err << "accelopt compare: " << error << "\n";
            return 1;
        }
        c.takeResults(results);
    }
    const Side (&sides)[2] = c.sides;
    const int context = c.context;
    const KernelDiff::Result diff = KernelDiff::compute(sides[0].text, sides[1].text);
    const QStringList missing = c.missing();
    const bool measured = missing.isEmpty();
    const bool benchmarkFailed = !measured && c.benchmarkFailed();
    const QList<MetricDelta> deltas =
        measured ? MetricDeltas::compute(*sides[0].evaluation, *sides[1].evaluation) : QList<MetricDelta>{};
    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("json"))) {
        out << QJsonDocument(c.toJson()).toJson(QJsonDocument::Compact) << "\n";
        return benchmarkFailed ? 1 : 0;
    }
    if (diff.identical())
        out << "the kernels are the same" << (diff.lineEndingsDiffer ? " (but for their line endings)" : "") << "\n";
    else
        out << diff.unified(sides[0].name, sides[1].name, context);
    out << QStringLiteral("\n%1 changed, %2 removed, %3 added lines\n").arg(diff.changed).arg(diff.removed).arg(diff.added);
    if (!measured) {
        out << "no metric deltas: " << missing.join(QStringLiteral("; "))
            << (parser.isSet(QStringLiteral("task")) ? "" : " (give --task to benchmark files)") << "\n";
        return benchmarkFailed ? 1 : 0;
    }
    // Where each side's numbers come from (issue 34): a prediction of nkisim's and a device's measurement
    // are not the same kind of number, so a mixed pair says so.
    out << "\nA: " << sides[0].evaluation->provenanceText()
        << "\nB: " << sides[1].evaluation->provenanceText() << "\n";
    if (sides[0].evaluation->provenance() != sides[1].evaluation->provenance())
        out << "note: one side was simulated and the other measured on hardware; the ratios mix the two\n";
    out << QStringLiteral("\n%1 %2 %3 %4  %5\n")
               .arg(QStringLiteral("metric"), -24)
               .arg(QStringLiteral("A"), 14)
               .arg(QStringLiteral("B"), 14)
               .arg(QStringLiteral("B/A"), 8)
               .arg(QStringLiteral("B is"));
    for (const MetricDelta &d : deltas) {
        const bool text = !d.leftText.isEmpty() || !d.rightText.isEmpty();
        const std::optional<double> ratio = d.ratio();
        out << QStringLiteral("%1 %2 %3 %4  %5\n")
                   .arg(d.label, -24)
                   .arg(text ? d.leftText : MetricDeltas::format(d, d.left), 14)
                   .arg(text ? d.rightText : MetricDeltas::format(d, d.right), 14)
                   .arg(ratio ? QStringLiteral("%1x").arg(*ratio, 0, 'f', 3) : QStringLiteral("-"), 8)
                   .arg(MetricDelta::verdictName(d.verdict()));
    }
    return 0;
}
