#include "armspec.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace {

const QString grammarHint = QStringLiteral(
    "write NAME=beam[,width=B][,plans=N][,samples=K][,iterations=T][,memory=on|off][,models=...] or "
    "NAME=sample[,n=N][,models=...], models as ROLE:ENDPOINT[/MODEL][@WEIGHT][+...][;ROLE:...]");

bool fail(QString *error, const QString &text)
{
    if (error)
        *error = text;
    return false;
}

std::optional<QList<ModelRoster::Member>> parseMembers(const QString &text, QString *error)
{
    QList<ModelRoster::Member> members;
    for (const QString &item : text.split(u'+')) {
        QString endpoint = item.trimmed();
        double weight = 1.0;
        if (const qsizetype at = endpoint.indexOf(u'@'); at >= 0) {
            bool ok = false;
            weight = endpoint.mid(at + 1).toDouble(&ok);
            if (!ok || weight <= 0) {
                fail(error, QStringLiteral("weight '%1' of '%2' is not a positive number")
                                .arg(endpoint.mid(at + 1), item));
                return std::nullopt;
            }
            endpoint = endpoint.left(at);
        }
        QString model;
        if (const qsizetype slash = endpoint.indexOf(u'/'); slash >= 0) {
            model = endpoint.mid(slash + 1);
            endpoint = endpoint.left(slash);
        }
        if (endpoint.isEmpty()) {
            fail(error, QStringLiteral("member '%1' names no endpoint").arg(item));
            return std::nullopt;
        }
        members << ModelRoster::Member(endpoint, weight, model);
    }
    return members;
}

std::optional<QMap<AgentRole, QList<ModelRoster::Member>>> parseModels(const QString &text, QString *error)
{
    QMap<AgentRole, QList<ModelRoster::Member>> models;
    for (const QString &part : text.split(u';', Qt::SkipEmptyParts)) {
        const qsizetype colon = part.indexOf(u':');
        if (colon < 0) {
            fail(error, QStringLiteral("'%1' lacks ROLE: before its models").arg(part));
            return std::nullopt;
        }
        const QString roleName = part.left(colon).trimmed();
        QList<AgentRole> roles;
        if (roleName == QStringLiteral("all")) {
            roles = AgentRoles::all();
        } else if (const auto role = AgentRoles::fromName(roleName)) {
            roles << *role;
        } else {
            fail(error,
                 QStringLiteral("unknown role '%1' (roles are planner, executor, fixer, summarizer, all)")
                     .arg(roleName));
            return std::nullopt;
        }
        const auto members = parseMembers(part.mid(colon + 1), error);
        if (!members)
            return std::nullopt;
        for (AgentRole role : roles)
            models[role] = *members;
    }
    if (models.isEmpty()) {
        fail(error, QStringLiteral("models= names no role"));
        return std::nullopt;
    }
    return models;
}

QString formatMembers(const QList<ModelRoster::Member> &members)
{
    QStringList items;
    for (const ModelRoster::Member &m : members) {
        QString item = m.endpoint;
        if (!m.model.isEmpty())
            item += u'/' + m.model;
        if (m.weight != 1.0)
            item += u'@' + QString::number(m.weight, 'g', 12);
        items << item;
    }
    return items.join(u'+');
}

} // namespace

std::optional<ArmSpec> ArmSpec::parse(const QString &argument, QString *error)
{
    const qsizetype eq = argument.indexOf(u'=');
    ArmSpec arm;
    arm.name = eq < 0 ? QString() : argument.left(eq).trimmed();
    static const QRegularExpression nameRule(QStringLiteral("^[A-Za-z0-9_-]{1,40}$"));
    if (eq < 0 || !nameRule.match(arm.name).hasMatch()) {
        fail(error, QStringLiteral("--arm '%1': it must start with a name (letters, digits, _ or -) and '=';"
                                   " %2")
                        .arg(argument, grammarHint));
        return std::nullopt;
    }
    const QString spec = argument.mid(eq + 1);
    const auto bad = [&](const QString &what) {
        fail(error, QStringLiteral("--arm %1: %2 in '%3'; %4").arg(arm.name, what, spec, grammarHint));
        return std::nullopt;
    };
    // models= holds ';' and ':' but never ',', so the spec splits on commas first.
    const QStringList parts = spec.split(u',');
    const QString mode = parts.first().trimmed();
    if (mode == QStringLiteral("beam"))
        arm.mode = Mode::Beam;
    else if (mode == QStringLiteral("sample"))
        arm.mode = Mode::Sample, arm.memory = false, arm.plans = 16;
    else
        return bad(QStringLiteral("the mode '%1' is neither beam nor sample").arg(mode));
    QStringList seen;
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QString part = parts.at(i).trimmed();
        const qsizetype at = part.indexOf(u'=');
        if (at <= 0)
            return bad(QStringLiteral("'%1' is not KEY=VALUE").arg(part));
        const QString key = part.left(at).trimmed();
        const QString value = part.mid(at + 1).trimmed();
        if (seen.contains(key))
            return bad(QStringLiteral("'%1' is given twice").arg(key));
        seen << key;
        const QStringList intKeys = arm.mode == Mode::Beam
                                        ? QStringList{QStringLiteral("width"), QStringLiteral("plans"),
                                                      QStringLiteral("samples"), QStringLiteral("iterations")}
                                        : QStringList{QStringLiteral("n")};
        if (intKeys.contains(key)) {
            bool ok = false;
            const int n = value.toInt(&ok);
            if (!ok || n < 1 || n > 1000)
                return bad(QStringLiteral("%1=%2 is not a whole number from 1 to 1000").arg(key, value));
            if (key == QStringLiteral("width"))
                arm.width = n;
            else if (key == QStringLiteral("plans") || key == QStringLiteral("n"))
                arm.plans = n;
            else if (key == QStringLiteral("samples"))
                arm.samples = n;
            else
                arm.iterations = n;
        } else if (key == QStringLiteral("memory") && arm.mode == Mode::Beam) {
            if (value != QStringLiteral("on") && value != QStringLiteral("off"))
                return bad(QStringLiteral("memory=%1 is neither on nor off").arg(value));
            arm.memory = value == QStringLiteral("on");
        } else if (key == QStringLiteral("models")) {
            QString why;
            const auto models = parseModels(value, &why);
            if (!models)
                return bad(why);
            arm.models = *models;
        } else {
            return bad(
                QStringLiteral("'%1' is not a key of %2 (keys: %3)")
                    .arg(key, mode,
                         (intKeys + QStringList{QStringLiteral("models")} +
                          (arm.mode == Mode::Beam ? QStringList{QStringLiteral("memory")} : QStringList{}))
                             .join(QStringLiteral(", "))));
        }
    }
    return arm;
}

QString ArmSpec::spec() const
{
    QStringList parts;
    if (mode == Mode::Sample) {
        parts << QStringLiteral("sample") << QStringLiteral("n=%1").arg(plans);
    } else {
        parts << QStringLiteral("beam") << QStringLiteral("width=%1").arg(width)
              << QStringLiteral("plans=%1").arg(plans) << QStringLiteral("samples=%1").arg(samples)
              << QStringLiteral("iterations=%1").arg(iterations)
              << QStringLiteral("memory=%1").arg(memory ? QStringLiteral("on") : QStringLiteral("off"));
    }
    if (!models.isEmpty()) {
        QStringList roles;
        for (auto it = models.cbegin(); it != models.cend(); ++it)
            roles << AgentRoles::name(it.key()) + u':' + formatMembers(it.value());
        parts << QStringLiteral("models=") + roles.join(u';');
    }
    return parts.join(u',');
}

SearchConfig ArmSpec::config() const
{
    SearchConfig c;
    c.patience = 0;
    c.fixRounds = 1;
    if (mode == Mode::Sample) {
        c.beamWidth = 1;
        c.plansPerKernel = plans;
        c.samplesPerPlan = 1;
        c.iterations = 1;
        c.topK = 0;
        c.expN = 0;
    } else {
        c.beamWidth = width;
        c.plansPerKernel = plans;
        c.samplesPerPlan = samples;
        c.iterations = iterations;
    }
    return c;
}

std::optional<LlmConfig> ArmSpec::llmConfig(const LlmConfig &base, QString *error) const
{
    LlmConfig config = base;
    const QStringList known = base.endpointNames();
    for (auto it = models.cbegin(); it != models.cend(); ++it) {
        for (const ModelRoster::Member &m : it.value())
            if (!known.contains(m.endpoint)) {
                fail(error,
                     QStringLiteral("arm %1 names the endpoint '%2' for the %3, which the LLM settings do "
                                    "not have (they have: %4); add it with 'accelopt models add' or "
                                    "name one of these")
                         .arg(name, m.endpoint, AgentRoles::name(it.key()),
                              known.isEmpty() ? QStringLiteral("none") : known.join(QStringLiteral(", "))));
                return std::nullopt;
            }
        config.roster.assign(it.key(), it.value());
    }
    return config;
}

QJsonObject ArmSpec::toJson() const
{
    return {{QStringLiteral("name"), name}, {QStringLiteral("spec"), spec()}};
}

std::optional<ArmSpec> ArmSpec::fromJson(const QJsonObject &o, QString *error)
{
    return parse(o.value(QStringLiteral("name")).toString() + u'=' +
                     o.value(QStringLiteral("spec")).toString(),
                 error);
}
