#include "searchoptions.h"

#include <QCommandLineParser>

namespace {

struct IntOption
{
    const char *name;
    int SearchConfig::*member;
};
struct DoubleOption
{
    const char *name;
    double SearchConfig::*member;
    double scale; // command-line unit -> config unit
};

constexpr IntOption kInts[] = {
    {"B", &SearchConfig::beamWidth},      {"N", &SearchConfig::plansPerKernel},
    {"K", &SearchConfig::samplesPerPlan}, {"T", &SearchConfig::iterations},
    {"F", &SearchConfig::fixRounds},      {"topk", &SearchConfig::topK},
    {"expn", &SearchConfig::expN},        {"patience", &SearchConfig::patience},
    {"seed", &SearchConfig::seed},
};
constexpr DoubleOption kDoubles[] = {
    {"budget-usd", &SearchConfig::budgetUsd, 1.0},
    {"budget-minutes", &SearchConfig::budgetWallSeconds, 60.0},
    {"target-percent", &SearchConfig::targetPercentOfPeak, 1.0},
    {"gain", &SearchConfig::gainThreshold, 1.0},
};

} // namespace

void SearchOptions::add(QCommandLineParser &parser)
{
    const QString presets = SearchConfig::presetNames().join(QStringLiteral(", "));
    parser.addOptions({
        {QStringLiteral("preset"), QStringLiteral("Start from a preset (%1; default: paper).").arg(presets),
         QStringLiteral("NAME")},
        {{QStringLiteral("B"), QStringLiteral("beam-width")},
         QStringLiteral("Kernels kept per iteration."),
         QStringLiteral("N")},
        {{QStringLiteral("N"), QStringLiteral("plans")},
         QStringLiteral("Planner calls per beam kernel."),
         QStringLiteral("N")},
        {{QStringLiteral("K"), QStringLiteral("samples")},
         QStringLiteral("Executor calls per plan."),
         QStringLiteral("N")},
        {{QStringLiteral("T"), QStringLiteral("iterations")},
         QStringLiteral("Iterations."),
         QStringLiteral("N")},
        {{QStringLiteral("F"), QStringLiteral("fix-rounds")},
         QStringLiteral("Fixer rounds for a kernel that fails to compile or is wrong."),
         QStringLiteral("N")},
        {QStringLiteral("topk"), QStringLiteral("New experiences per iteration, at most."),
         QStringLiteral("N")},
        {QStringLiteral("expn"), QStringLiteral("Experiences shown to the planner."), QStringLiteral("N")},
        {QStringLiteral("patience"),
         QStringLiteral("Stop after N iterations without improvement (0: never)."), QStringLiteral("N")},
        {QStringLiteral("seed"),
         QStringLiteral("Seed of the models' sampling; the same seed asks the same way (default: drawn)."),
         QStringLiteral("N")},
        {QStringLiteral("gain"), QStringLiteral("Speedup that makes a positive experience (default 1.04)."),
         QStringLiteral("X")},
        {QStringLiteral("budget-usd"), QStringLiteral("Stop when the LLM calls have cost this many dollars."),
         QStringLiteral("X")},
        {QStringLiteral("budget-tokens"), QStringLiteral("Stop after this many prompt + completion tokens."),
         QStringLiteral("N")},
        {QStringLiteral("budget-minutes"), QStringLiteral("Stop after this many minutes of this run."),
         QStringLiteral("X")},
        {QStringLiteral("target-percent"),
         QStringLiteral("Stop when the best kernel reaches this % of the roofline peak."),
         QStringLiteral("X")},
        {QStringLiteral("check-all"),
         QStringLiteral("Check every candidate's numerics. By default a candidate is first only timed, and "
                        "checked only if it is fast enough to enter the beam or make an experience.")},
        {QStringLiteral("confirm-on"),
         QStringLiteral("Simulate first, confirm on hardware: every candidate is timed on the search's host "
                        "(nkisim), and only those that could change the outcome (in or near the beam, or "
                        "making an experience) are measured again on the Neuron host HOST; the beam, the "
                        "experiences and the best use its numbers only. 'none' turns it off."),
         QStringLiteral("HOST")},
    });
}

bool SearchOptions::apply(const QCommandLineParser &parser, SearchConfig &config, bool &changed,
                          QString &error)
{
    changed = false;
    if (parser.isSet(QStringLiteral("preset"))) {
        const std::optional<SearchConfig> preset =
            SearchConfig::preset(parser.value(QStringLiteral("preset")));
        if (!preset) {
            error = QStringLiteral("--preset must be one of %1, not '%2'")
                        .arg(SearchConfig::presetNames().join(QStringLiteral(", ")),
                             parser.value(QStringLiteral("preset")));
            return false;
        }
        config = *preset;
        changed = true;
    }
    bool ok = false;
    for (const IntOption &o : kInts) {
        const QString name = QLatin1String(o.name);
        if (!parser.isSet(name))
            continue;
        const int v = parser.value(name).toInt(&ok);
        if (!ok) {
            error = QStringLiteral("-%1%2 wants a whole number, not '%3'")
                        .arg(name.size() > 1 ? QStringLiteral("-") : QString(), name, parser.value(name));
            return false;
        }
        config.*o.member = v;
        changed = true;
    }
    for (const DoubleOption &o : kDoubles) {
        const QString name = QLatin1String(o.name);
        if (!parser.isSet(name))
            continue;
        const double v = parser.value(name).toDouble(&ok);
        if (!ok) {
            error = QStringLiteral("--%1 wants a number, not '%2'").arg(name, parser.value(name));
            return false;
        }
        config.*o.member = v * o.scale;
        changed = true;
    }
    if (parser.isSet(QStringLiteral("budget-tokens"))) {
        config.budgetTokens = parser.value(QStringLiteral("budget-tokens")).toLongLong(&ok);
        if (!ok) {
            error = QStringLiteral("--budget-tokens wants a whole number");
            return false;
        }
        changed = true;
    }
    if (parser.isSet(QStringLiteral("check-all"))) {
        config.checkAll = true;
        changed = true;
    }
    if (parser.isSet(QStringLiteral("confirm-on"))) {
        const QString host = parser.value(QStringLiteral("confirm-on")).trimmed();
        if (host.isEmpty()) {
            error = QStringLiteral("--confirm-on wants a host name from hosts.json (or 'none')");
            return false;
        }
        config.confirmOn = host == QLatin1String("none") ? QString() : host;
        changed = true;
    }
    if (const QStringList problems = config.problems(); !problems.isEmpty()) {
        error = QStringLiteral("invalid search settings: ") + problems.join(QStringLiteral("; "));
        return false;
    }
    return true;
}
