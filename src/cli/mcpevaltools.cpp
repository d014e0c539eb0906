// bench and compare: the tools that evaluate kernels on a host, through the same runner and sandbox as
// `accelopt bench` and `accelopt compare`.
#include "mcptools.h"

#include "benchcommand.h"
#include "comparecommand.h"
#include "evalrun.h"
#include "hosts/sshprompter.h"
#include "mcpargs.h"
#include "mcpcall.h"
#include "mcpschema.h"

#include "advice/advisor.h"
#include "advice/ruleset.h"
#include "model/targets.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QTimer>

#include <limits>

namespace {

using Kind = McpArgs::Kind;

QJsonValue orNull(const std::optional<double> &v)
{
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonValue profileJson(const Evaluation &e)
{
    if (!e.profile)
        return QJsonValue::Null;
    const EvalProfile &p = *e.profile;
    QJsonObject busy;
    for (int i = 0; i < EvalProfile::EngineCount; ++i)
        busy.insert(EvalProfile::engineName(i), p.engineBusyNs[size_t(i)] / 1e6);
    const Evaluation::EngineActivity a = e.engineActivity();
    const Evaluation::MemoryTraffic m = e.memoryTraffic();
    QJsonArray hottest;
    const double total = p.totalLineNs();
    for (const EvalProfile::LineCost &c : p.hottest(5))
        hottest.append(QJsonObject{{QStringLiteral("line"), c.line},
                                   {QStringLiteral("ms"), c.totalNs() / 1e6},
                                   {QStringLiteral("share"), total > 0 ? c.totalNs() / total : 0.0},
                                   {QStringLiteral("instructions"), c.instructions},
                                   {QStringLiteral("bytes"), c.bytes}});
    QJsonObject missing;
    for (auto it = p.missing.cbegin(); it != p.missing.cend(); ++it)
        missing.insert(it.key(), it.value());
    return QJsonObject{
        {QStringLiteral("source"), p.source},
        {QStringLiteral("instructions"), p.instructionCount},
        {QStringLiteral("engine_busy_ms"), busy},
        {QStringLiteral("engine_active"),
         QJsonObject{{QStringLiteral("tensor"), orNull(a.tensor)},
                     {QStringLiteral("vector"), orNull(a.vector)},
                     {QStringLiteral("scalar"), orNull(a.scalar)},
                     {QStringLiteral("gpsimd"), orNull(a.gpsimd)},
                     {QStringLiteral("dma"), orNull(a.dma)}}},
        {QStringLiteral("memory_bytes"),
         QJsonObject{{QStringLiteral("hbm_read"), orNull(m.hbmRead)},
                     {QStringLiteral("hbm_write"), orNull(m.hbmWrite)},
                     {QStringLiteral("sbuf_read"), orNull(m.sbufRead)},
                     {QStringLiteral("sbuf_write"), orNull(m.sbufWrite)},
                     {QStringLiteral("psum_read"), orNull(m.psumRead)},
                     {QStringLiteral("psum_write"), orNull(m.psumWrite)}}},
        {QStringLiteral("hottest_lines"), hottest},
        {QStringLiteral("missing"), missing}};
}

QJsonArray recommendationsJson(const Evaluation &e)
{
    QJsonArray list;
    if (!e.ok())
        return list;
    for (const Finding &f : Advisor::evaluate(RuleSet::shipped(), e)) {
        QJsonArray because;
        for (const Evidence &x : f.evidence)
            because.append(x.text());
        list.append(QJsonObject{{QStringLiteral("rule"), f.ruleId},
                                {QStringLiteral("title"), f.title},
                                {QStringLiteral("severity"), Severities::name(f.severity)},
                                {QStringLiteral("advice"), f.advice},
                                {QStringLiteral("because"), because}});
    }
    return list;
}

// One line saying how an evaluation went, before its JSON.
QString verdict(const QString &label, const Evaluation &e)
{
    if (!e.ok())
        return QStringLiteral("%1: %2: %3").arg(label, e.statusName(), e.error.section(u'\n', 0, 2));
    return QStringLiteral("%1: ok, %2, %3 ms, %4 % of peak")
        .arg(label,
             e.correct ? (*e.correct ? QStringLiteral("correct") : QStringLiteral("INCORRECT"))
                       : QStringLiteral("not checked (timing only)"),
             e.latencyMeanMs ? QString::number(*e.latencyMeanMs, 'g', 4) : QStringLiteral("-"),
             e.percentOfPeak ? QString::number(*e.percentOfPeak, 'f', 1) : QStringLiteral("-"));
}

// Runs `items` on the host the parsed options name, telling progress on the way: a milestone when it starts,
// a heartbeat while it runs, the host's troubles, each result. `done` gets the results, in order.
void evaluate(McpCall *call, const QCommandLineParser &parser, const QList<EvalBatch::Item> &items,
              const std::function<void(const QList<Evaluation> &)> &done)
{
    EvalRun::Settings settings = EvalRun::settingsOf(parser);
    // stdin is the protocol: an SSH host's question is refused (accept its key with 'accelopt hosts' first).
    settings.prompter = std::make_shared<SshPrompter>();
    auto *run = new EvalRun(settings, call);
    QElapsedTimer clock;
    clock.start();
    auto *beat = new QTimer(call);
    QObject::connect(beat, &QTimer::timeout, call, [call, clock, n = int(items.size())] {
        call->progress(QStringLiteral("evaluating %1 kernel(s): %2 s so far").arg(n).arg(clock.elapsed() / 1000));
    });
    QObject::connect(call, &McpCall::cancelled, run, &EvalRun::cancel);
    QObject::connect(run, &EvalRun::hostTrouble, call, [call](const QString &message) { call->progress(message); });
    QObject::connect(run, &EvalRun::itemFinished, call, [call, items](int index, const Evaluation &e) {
        call->progress(QStringLiteral("finished %1").arg(verdict(items.at(index).label, e)));
    });
    QObject::connect(run, &EvalRun::finished, call, [beat, done](const QList<Evaluation> &results) {
        beat->stop();
        done(results);
    });
    QString error;
    if (!run->start(items, error))
        return call->fail(error);
    call->progress(QStringLiteral("evaluating %1 kernel(s) on host %2 (%3 size%4)")
                       .arg(items.size())
                       .arg(run->hostName(), items.value(0).request.size,
                            items.value(0).request.timingOnly ? QStringLiteral(", timing only") : QString()));
    if (run->isDone())
        return done({});
    beat->start(2000);
}

void runBench(McpCall *call)
{
    QCommandLineParser parser;
    BenchCommand::addOptions(parser);
    QString error;
    if (!McpArgs::parse(parser, QStringLiteral("accelopt bench"),
                        McpArgs::argv(call->arguments(), {{"kernel", "", Kind::Positional},
                                                          {"task", "task", Kind::Value},
                                                          {"dataset", "dataset", Kind::Value},
                                                          {"host", "host", Kind::Value},
                                                          {"backend", "backend", Kind::Value},
                                                          {"target", "target", Kind::Value},
                                                          {"size", "size", Kind::Value},
                                                          {"timing_only", "timing-only", Kind::Flag},
                                                          {"timeout", "timeout", Kind::Value},
                                                          {"seeds", "seeds", Kind::List}}),
                        error))
        return call->fail(error);
    EvalBatch::Item item;
    QString note;
    if (BenchCommand::prepare(parser, item, error, note) != 0)
        return call->fail(error);
    if (!note.isEmpty())
        call->progress(note);
    const QString kernel = call->arguments().value(QStringLiteral("kernel")).toString();
    evaluate(call, parser, {item}, [call, item, kernel](const QList<Evaluation> &results) {
        const Evaluation e = results.value(0);
        QJsonObject o = McpTools::evaluationJson(item.label, e);
        o.insert(QStringLiteral("kernel"), kernel);
        if (e.ok())
            call->succeed(o, verdict(item.label, e));
        else
            call->fail(verdict(item.label, e), o);
    });
}

void runCompare(McpCall *call)
{
    QCommandLineParser parser;
    CompareCommand::addOptions(parser);
    QString error;
    if (!McpArgs::parse(parser, QStringLiteral("accelopt compare"),
                        McpArgs::argv(call->arguments(), {{"a", "", Kind::Positional},
                                                          {"b", "", Kind::Positional},
                                                          {"task", "task", Kind::Value},
                                                          {"dataset", "dataset", Kind::Value},
                                                          {"context", "context", Kind::Value},
                                                          {"host", "host", Kind::Value},
                                                          {"backend", "backend", Kind::Value},
                                                          {"target", "target", Kind::Value},
                                                          {"size", "size", Kind::Value},
                                                          {"timing_only", "timing-only", Kind::Flag},
                                                          {"timeout", "timeout", Kind::Value},
                                                          {"seeds", "seeds", Kind::List}}),
                        error))
        return call->fail(error);
    auto comparison = std::make_shared<CompareCommand::Comparison>();
    if (CompareCommand::prepare(parser, *comparison, error) != 0)
        return call->fail(error);
    const auto answer = [call, comparison] {
        const QJsonObject o = comparison->toJson();
        const QString summary = QStringLiteral("%1 changed, %2 removed, %3 added lines; %4")
                                    .arg(o.value(QStringLiteral("changed")).toInt())
                                    .arg(o.value(QStringLiteral("removed")).toInt())
                                    .arg(o.value(QStringLiteral("added")).toInt())
                                    .arg(o.value(QStringLiteral("deltas")).isArray()
                                             ? QStringLiteral("metric deltas follow")
                                             : QStringLiteral("no metric deltas: ") +
                                                   o.value(QStringLiteral("no_deltas_because")).toString());
        if (!comparison->missing().isEmpty() && comparison->benchmarkFailed())
            call->fail(summary, o);
        else
            call->succeed(o, summary);
    };
    if (comparison->items.isEmpty())
        return answer();
    evaluate(call, parser, comparison->items, [comparison, answer](const QList<Evaluation> &results) {
        comparison->takeResults(results);
        answer();
    });
}

} // namespace

QJsonObject McpTools::evalProperties()
{
    return {
        {QStringLiteral("host"), McpSchema::string(QStringLiteral(
                                     "Host to run on, by its name in the hosts file ('accelopt hosts list'; default: "
                                     "local, this machine with nkisim)."))},
        {QStringLiteral("backend"), McpSchema::oneOf(QStringLiteral("sim (nkisim) or neuron (real Trainium); "
                                                                    "default: the host's."),
                                                     {QStringLiteral("sim"), QStringLiteral("neuron")})},
        {QStringLiteral("target"), McpSchema::oneOf(QStringLiteral("Trainium generation; default: the host's."), Targets::all())},
        {QStringLiteral("size"), McpSchema::oneOf(QStringLiteral("Parameter set: full (NKIBench, default) or small (quick)."),
                                                  {QStringLiteral("full"), QStringLiteral("small")})},
        {QStringLiteral("timing_only"), McpSchema::boolean(QStringLiteral("Skip the numerics: latency and profile only."))},
        {QStringLiteral("timeout"), McpSchema::number(QStringLiteral("Seconds one evaluation may take (default: 600, "
                                                                     "more for full-size numeric runs; 0.5 s to 7 days)."),
                                                      0.5)},
        {QStringLiteral("seeds"),
         [] {
             QJsonObject s = McpSchema::array(McpSchema::integer(QString(), 0, 2147483647),
                                              QStringLiteral("Correctness seeds (default: 3 fresh random ones)."));
             s.insert(QStringLiteral("minItems"), 1);
             return s;
         }()},
    };
}

QJsonObject McpTools::evaluationJson(const QString &task, const Evaluation &evaluation)
{
    QJsonObject o = evaluation.summaryJson(task);
    o.insert(QStringLiteral("profile"), profileJson(evaluation));
    o.insert(QStringLiteral("recommendations"), recommendationsJson(evaluation));
    return o;
}

QJsonObject McpTools::evaluationSchema()
{
    const auto num = [](const char *d) { return McpSchema::nullable(McpSchema::number(QLatin1String(d), -1e300)); };
    QJsonObject profile = McpSchema::nullable(McpSchema::object(
        {{"source", McpSchema::string(QStringLiteral("nkisim or neuron-profile"))},
         {"instructions", McpSchema::integer(QString(), 0, std::numeric_limits<qint64>::max())},
         {"engine_busy_ms", McpSchema::anyObject(QStringLiteral("Busy time per engine (tensor, vector, scalar, gpsimd, dma)."))},
         {"engine_active", McpSchema::anyObject(QStringLiteral("Active time per engine as a fraction 0-1 of the kernel's time."))},
         {"memory_bytes", McpSchema::anyObject(QStringLiteral("Bytes read and written per memory (HBM, SBUF, PSUM)."))},
         {"hottest_lines", McpSchema::array(McpSchema::object({{"line", McpSchema::integer(QString(), 0, 1 << 30)},
                                                                {"ms", McpSchema::number(QString(), 0)},
                                                                {"share", McpSchema::number(QString(), 0)},
                                                                {"instructions", McpSchema::integer(QString(), 0, std::numeric_limits<qint64>::max())},
                                                                {"bytes", McpSchema::integer(QString(), 0, std::numeric_limits<qint64>::max())}},
                                                               {QStringLiteral("line"), QStringLiteral("ms"), QStringLiteral("share")},
                                                               false),
                                            QStringLiteral("The kernel lines that cost the most, largest first."))},
         {"missing", McpSchema::anyObject(QStringLiteral("What the backend could not measure, and why."))}},
        {QStringLiteral("source"), QStringLiteral("engine_busy_ms"), QStringLiteral("hottest_lines")}, false));
    profile.insert(QStringLiteral("description"), QStringLiteral("Where the time went; null when the host's runner sent no profile."));
    return McpSchema::object(
        {{"task", McpSchema::string(QStringLiteral("The task the kernel was evaluated on."))},
         {"kernel", McpSchema::string(QStringLiteral("The kernel file."))},
         {"status", McpSchema::string(QStringLiteral("ok, incorrect, compile_error, runtime_error, timeout, rejected, crashed "
                                                     "or infra_error."))},
         {"error", McpSchema::nullable(McpSchema::string(QStringLiteral("Why it is not ok, with the kernel's line where there is one.")))},
         {"correct", McpSchema::nullable(McpSchema::boolean(QStringLiteral("Null when not checked (timing only).")))},
         {"l2_rel_err", num("Relative L2 error against the reference.")},
         {"latency_ms", num("Mean latency.")},
         {"percent_of_peak", num("Roofline peak over latency, 0-100.")},
         {"peak_ms", num("The roofline's best possible latency.")},
         {"bound", McpSchema::nullable(McpSchema::string(QStringLiteral("What bounds the roofline: memory, matmul, vector, ...")))},
         {"rel_spread", num("Spread of the timed iterations.")},
         {"wall_s", num("Wall time of the evaluation.")},
         {"host", McpSchema::string(QStringLiteral("Host and slot that ran it."))},
         {"metrics", McpSchema::anyObject(QStringLiteral("neuron-profile summary metrics (the _percent ones are fractions 0-1)."))},
         {"warnings", McpSchema::array(McpSchema::string(QString()))},
         {"line_costs", McpSchema::array(McpSchema::anyObject(), QStringLiteral("Cost per kernel line."))},
         {"explain", McpSchema::anyObject(QStringLiteral("nkisim only: the modelled effects behind the estimate."))},
         {"phase_s", McpSchema::anyObject(QStringLiteral("Seconds per phase of the evaluation."))},
         {"peak_rss_mb", num("Peak memory of the evaluation.")},
         {"timing_inputs", McpSchema::nullable(McpSchema::string(QStringLiteral("What a timing-only run ran on.")))},
         {"output", McpSchema::string(QStringLiteral("What the kernel (and the task's reference) printed."))},
         {"profile", profile},
         {"recommendations",
          McpSchema::array(McpSchema::object({{"rule", McpSchema::string(QString())},
                                              {"title", McpSchema::string(QString())},
                                              {"severity", McpSchema::oneOf(QString(), {QStringLiteral("warning"), QStringLiteral("info")})},
                                              {"advice", McpSchema::string(QString())},
                                              {"because", McpSchema::array(McpSchema::string(QString()))}},
                                             {QStringLiteral("rule"), QStringLiteral("title"), QStringLiteral("severity"),
                                              QStringLiteral("advice")},
                                             false),
                           QStringLiteral("What the shipped recommendation rules say about this profile."))}},
        {QStringLiteral("task"), QStringLiteral("status"), QStringLiteral("error"), QStringLiteral("correct"),
         QStringLiteral("latency_ms"), QStringLiteral("percent_of_peak"), QStringLiteral("host"),
         QStringLiteral("metrics"), QStringLiteral("warnings"), QStringLiteral("profile"),
         QStringLiteral("recommendations")},
        false);
}

McpTool McpTools::bench()
{
    QJsonObject properties = evalProperties();
    properties.insert(QStringLiteral("kernel"),
                      McpSchema::string(QStringLiteral("The NKI kernel file (.py), absolute or relative to the server's "
                                                       "working folder.")));
    properties.insert(QStringLiteral("task"),
                      McpSchema::string(QStringLiteral("Task name (see tasks_list) or task folder; default: the task the "
                                                       "kernel file belongs to.")));
    properties.insert(QStringLiteral("dataset"), McpSchema::string(QStringLiteral("A dataset in the original NKIBench layout.")));
    QJsonObject input{{QStringLiteral("type"), QStringLiteral("object")},
                      {QStringLiteral("properties"), properties},
                      {QStringLiteral("required"), QJsonArray{QStringLiteral("kernel")}},
                      {QStringLiteral("additionalProperties"), false}};
    return {QStringLiteral("bench"),
            QStringLiteral("Benchmark a kernel"),
            QStringLiteral("Compile, check and time one NKI kernel on a task, on nkisim (the default local host) or a "
                           "configured Trainium host, through the workbench's runner and sandbox: status, correctness, "
                           "latency, % of the roofline peak, the profile summary and recommendations. As `accelopt "
                           "bench --json`. A kernel that does not compile or is wrong is an error result that still "
                           "carries its evaluation."),
            input,
            evaluationSchema(),
            runBench};
}

McpTool McpTools::compare()
{
    QJsonObject properties = evalProperties();
    properties.insert(QStringLiteral("a"), McpSchema::string(QStringLiteral("The slower or older kernel: a file, or a candidate id of the workspace.")));
    properties.insert(QStringLiteral("b"), McpSchema::string(QStringLiteral("The faster or newer kernel: a file, or a candidate id.")));
    properties.insert(QStringLiteral("task"), McpSchema::string(QStringLiteral("Benchmark the file kernels on this task (name or folder) for the metric deltas.")));
    properties.insert(QStringLiteral("dataset"), McpSchema::string(QStringLiteral("A dataset in the original NKIBench layout.")));
    properties.insert(QStringLiteral("context"), McpSchema::integer(QStringLiteral("Unchanged lines around each change (default 3)."), 0, 10000));
    const QJsonObject input{{QStringLiteral("type"), QStringLiteral("object")},
                            {QStringLiteral("properties"), properties},
                            {QStringLiteral("required"), QJsonArray{QStringLiteral("a"), QStringLiteral("b")}},
                            {QStringLiteral("additionalProperties"), false}};
    QJsonObject side = McpSchema::object({{"name", McpSchema::string(QString())},
                                          {"candidate", McpSchema::string(QString())},
                                          {"session", McpSchema::string(QString())},
                                          {"evaluation", McpSchema::anyObject(QStringLiteral("As bench's summary."))}},
                                         {QStringLiteral("name")}, false);
    const QJsonObject output = McpSchema::object(
        {{"identical", McpSchema::boolean(QString())},
         {"added", McpSchema::integer(QString(), 0, 1 << 30)},
         {"removed", McpSchema::integer(QString(), 0, 1 << 30)},
         {"changed", McpSchema::integer(QString(), 0, 1 << 30)},
         {"line_endings_differ", McpSchema::boolean(QString())},
         {"hunks", McpSchema::array(McpSchema::anyObject(), QStringLiteral("The unified diff's hunks: starts, counts and lines."))},
         {"left", side},
         {"right", side},
         {"deltas", McpSchema::nullable(McpSchema::array(McpSchema::anyObject(), QStringLiteral("Metric deltas, B against A.")))},
         {"no_deltas_because", McpSchema::string(QString())}},
        {QStringLiteral("identical"), QStringLiteral("hunks"), QStringLiteral("left"), QStringLiteral("right"),
         QStringLiteral("deltas")},
        false);
    return {QStringLiteral("compare"),
            QStringLiteral("Compare two kernels"),
            QStringLiteral("The diff of two kernels (files or candidates of the workspace) and, when both are measured "
                           "(candidates bring their evaluations; files are benchmarked when task is given), the metric "
                           "deltas. As `accelopt compare --json`."),
            input,
            output,
            runCompare};
}

QList<McpTool> McpTools::all()
{
    return {bench(), compare(), port(), memorySearch(), tasksList()};
}
