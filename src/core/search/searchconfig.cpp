#include "search/searchconfig.h"

#include <QJsonValue>

#include <cmath>
#include <limits>

namespace {

const QString kVersion = QStringLiteral("version");

// One table drives the JSON keys, so toJson and fromJson cannot drift apart.
struct IntField
{
    const char *key;
    int SearchConfig::*member;
};
struct DoubleField
{
    const char *key;
    double SearchConfig::*member;
};

constexpr IntField kIntFields[] = {
    {"beam_width", &SearchConfig::beamWidth},
    {"plans_per_kernel", &SearchConfig::plansPerKernel},
    {"samples_per_plan", &SearchConfig::samplesPerPlan},
    {"iterations", &SearchConfig::iterations},
    {"fix_rounds", &SearchConfig::fixRounds},
    {"top_k", &SearchConfig::topK},
    {"exp_n", &SearchConfig::expN},
    {"patience", &SearchConfig::patience},
    {"seed", &SearchConfig::seed},
};
constexpr DoubleField kDoubleFields[] = {
    {"gain_threshold", &SearchConfig::gainThreshold},
    {"loss_threshold", &SearchConfig::lossThreshold},
    {"noise_floor", &SearchConfig::noiseFloor},
    {"budget_usd", &SearchConfig::budgetUsd},
    {"budget_wall_seconds", &SearchConfig::budgetWallSeconds},
    {"target_percent_of_peak", &SearchConfig::targetPercentOfPeak},
};
const char *const kTokensKey = "budget_tokens";
const char *const kCheckAllKey = "check_all";
const char *const kConfirmOnKey = "confirm_on";

bool setError(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

std::nullopt_t fail(QString *error, const QString &text)
{
    setError(error, text);
    return std::nullopt;
}

} // namespace

QStringList SearchConfig::problems() const
{
    QStringList out;
    auto atLeast = [&out](const char *what, qint64 value, qint64 min) {
        if (value < min)
            out << QStringLiteral("%1 must be at least %2 (it is %3)")
                       .arg(QLatin1String(what))
                       .arg(min)
                       .arg(value);
    };
    atLeast("beam width B", beamWidth, 1);
    atLeast("plans per kernel N", plansPerKernel, 1);
    atLeast("samples per plan K", samplesPerPlan, 1);
    atLeast("iterations T", iterations, 1);
    atLeast("fix rounds F", fixRounds, 0);
    atLeast("TopK (new experiences per iteration)", topK, 0);
    atLeast("ExpN (experiences shown to the planner)", expN, 0);
    atLeast("patience P", patience, 0);
    atLeast("seed", seed, 0);
    atLeast("token budget", budgetTokens, 0);
    if (!std::isfinite(gainThreshold) || gainThreshold <= 1.0)
        out << QStringLiteral("the gain threshold must be above 1 (it is %1)").arg(gainThreshold);
    if (!std::isfinite(lossThreshold) || lossThreshold <= 0.0 || lossThreshold >= 1.0)
        out << QStringLiteral("the loss threshold must be between 0 and 1, e.g. 1/1.15 (it is %1)")
                   .arg(lossThreshold);
    if (!std::isfinite(noiseFloor) || noiseFloor < 0.0 || noiseFloor >= 1.0)
        out << QStringLiteral("the noise floor must be in [0, 1) (it is %1)").arg(noiseFloor);
    if (!std::isfinite(budgetUsd) || budgetUsd < 0)
        out << QStringLiteral("the money budget must be 0 (none) or positive (it is %1)").arg(budgetUsd);
    if (!std::isfinite(budgetWallSeconds) || budgetWallSeconds < 0)
        out << QStringLiteral("the wall-time budget must be 0 (none) or positive (it is %1)")
                   .arg(budgetWallSeconds);
    if (!std::isfinite(targetPercentOfPeak) || targetPercentOfPeak < 0 || targetPercentOfPeak > 100)
        out << QStringLiteral("the target percent of peak must be between 0 (none) and 100 (it is %1)")
                   .arg(targetPercentOfPeak);
    if (confirmOn != confirmOn.trimmed())
        out << QStringLiteral("the confirm host's name has spaces around it (\"%1\")").arg(confirmOn);
    return out;
}

QJsonObject SearchConfig::toJson() const
{
    QJsonObject o{{kVersion, formatVersion}};
    for (const IntField &f : kIntFields)
        o.insert(QLatin1String(f.key), this->*f.member);
    for (const DoubleField &f : kDoubleFields)
        o.insert(QLatin1String(f.key), this->*f.member);
    o.insert(QLatin1String(kTokensKey), budgetTokens);
    o.insert(QLatin1String(kCheckAllKey), checkAll);
    if (!confirmOn.isEmpty()) // absent when off, so the settings of sessions without it read as before
        o.insert(QLatin1String(kConfirmOnKey), confirmOn);
    return o;
}

std::optional<SearchConfig> SearchConfig::fromJson(const QJsonObject &o, QString *error)
{
    SearchConfig c;
    QStringList known{kVersion, QLatin1String(kTokensKey), QLatin1String(kCheckAllKey),
                      QLatin1String(kConfirmOnKey)};
    if (o.contains(kVersion)) {
        const QJsonValue v = o.value(kVersion);
        if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()))
            return fail(error, QStringLiteral("search config: \"version\" must be an integer"));
        if (v.toInt() > formatVersion)
            return fail(error, QStringLiteral("search config: format version %1 is newer than this program "
                                              "understands (%2); update AccelOpt Workbench")
                                   .arg(v.toInt())
                                   .arg(formatVersion));
    }
    auto integer = [&](const char *key, qint64 &out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined())
            return true;
        const double d = v.toDouble();
        if (!v.isDouble() || d != std::floor(d) || std::fabs(d) > 9.0e15)
            return setError(
                error, QStringLiteral("search config: \"%1\" must be an integer").arg(QLatin1String(key)));
        out = qint64(d);
        return true;
    };
    for (const IntField &f : kIntFields) {
        known << QLatin1String(f.key);
        qint64 value = c.*f.member;
        if (!integer(f.key, value))
            return std::nullopt;
        if (value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min())
            return fail(error,
                        QStringLiteral("search config: \"%1\" is out of range").arg(QLatin1String(f.key)));
        c.*f.member = int(value);
    }
    for (const DoubleField &f : kDoubleFields) {
        known << QLatin1String(f.key);
        const QJsonValue v = o.value(QLatin1String(f.key));
        if (v.isUndefined())
            continue;
        if (!v.isDouble())
            return fail(error,
                        QStringLiteral("search config: \"%1\" must be a number").arg(QLatin1String(f.key)));
        c.*f.member = v.toDouble();
    }
    if (!integer(kTokensKey, c.budgetTokens))
        return std::nullopt;
    if (const QJsonValue v = o.value(QLatin1String(kCheckAllKey)); !v.isUndefined()) {
        if (!v.isBool())
            return fail(error, QStringLiteral("search config: \"%1\" must be true or false")
                                   .arg(QLatin1String(kCheckAllKey)));
        c.checkAll = v.toBool();
    }
    if (const QJsonValue v = o.value(QLatin1String(kConfirmOnKey)); !v.isUndefined()) {
        if (!v.isString())
            return fail(error, QStringLiteral("search config: \"%1\" must be a host name (a string)")
                                   .arg(QLatin1String(kConfirmOnKey)));
        c.confirmOn = v.toString();
    }
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!known.contains(it.key()))
            return fail(error, QStringLiteral("search config: unknown setting \"%1\"").arg(it.key()));
    return c;
}

QStringList SearchConfig::presetNames()
{
    return {QStringLiteral("paper"), QStringLiteral("interactive")};
}

std::optional<SearchConfig> SearchConfig::preset(const QString &name)
{
    SearchConfig c; // the defaults are the paper's values
    if (name == QLatin1String("paper"))
        return c;
    if (name == QLatin1String("interactive")) {
        c.beamWidth = 2;
        c.plansPerKernel = 3;
        c.samplesPerPlan = 1;
        c.iterations = 4;
        c.fixRounds = 1;
        c.topK = 4;
        c.expN = 8;
        c.patience = 2;
        return c;
    }
    return std::nullopt;
}
