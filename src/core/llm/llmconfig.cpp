#include "llm/llmconfig.h"

#include "common/jsontext.h"
#include "common/logcategories.h"
#include "common/regularfile.h"
#include "llm/llmconfigaccess.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QSet>
#include <QStandardPaths>

#include <cmath>

const Endpoint *LlmConfig::endpoint(const QString &name) const
{
    for (const Endpoint &e : endpoints)
        if (e.name == name)
            return &e;
    return nullptr;
}

QStringList LlmConfig::endpointNames() const
{
    QStringList names;
    for (const Endpoint &e : endpoints)
        names << e.name;
    return names;
}

QStringList LlmConfig::problems() const
{
    QStringList out;
    QSet<QString> seen; // a list here made `models list` quadratic: 15 s for 100,000 endpoints
    seen.reserve(endpoints.size());
    for (const Endpoint &e : endpoints) {
        if (seen.contains(e.name))
            out << QStringLiteral("two endpoints are named '%1'").arg(e.name);
        seen.insert(e.name);
        for (const QString &p : e.problems())
            out << QStringLiteral("%1: %2").arg(e.name, p);
    }
    out << roster.problems(endpointNames());
    // A role's model must be one its endpoint serves: a typo would otherwise surface as a 404 mid-search.
    for (AgentRole role : AgentRoles::all())
        for (const ModelRoster::Member &m : roster.members(role))
            if (const Endpoint *e = endpoint(m.endpoint); e && !m.model.isEmpty() && !e->servedModels().contains(m.model))
                out << QStringLiteral("the %1 uses model '%2', which endpoint '%3' does not list")
                           .arg(AgentRoles::name(role), m.model, m.endpoint);
    return out;
}

QJsonObject LlmConfig::toJson() const
{
    QJsonArray list;
    for (const Endpoint &e : endpoints)
        list.append(e.toJson());
    return {
        {QStringLiteral("version"), formatVersion},
        {QStringLiteral("endpoints"), list},
        {QStringLiteral("roles"), roster.toJson()},
        {QStringLiteral("prices"), prices.toJson()},
        {QStringLiteral("retry"), QJsonObject{{QStringLiteral("max_attempts"), retry.maxAttempts},
                                              {QStringLiteral("base_delay_ms"), retry.baseDelayMs},
                                              {QStringLiteral("max_delay_ms"), retry.maxDelayMs},
                                              {QStringLiteral("max_retry_after_ms"), retry.maxRetryAfterMs},
                                              {QStringLiteral("jitter"), retry.jitter}}}};
}

namespace {
// A value out of range or of the wrong type was read as the default without a word (timeout_ms 1e99,
// concurrency 1e12): refuse it, naming the endpoint, the field and what it may be. The ranges are the
// Models dialog's.
bool checkEndpoint(const QJsonValue &value, qsizetype index, QString &problem)
{
    if (!value.isObject()) {
        problem = QStringLiteral("endpoint %1 must be an object, not %2").arg(index + 1).arg(JsonText::compact(value));
        return false;
    }
    const QJsonObject o = value.toObject();
    const QString who = o.value(QStringLiteral("name")).isString()
                            ? QStringLiteral("endpoint '%1'").arg(o.value(QStringLiteral("name")).toString())
                            : QStringLiteral("endpoint %1").arg(index + 1);
    struct Range
    {
        const char *key;
        double low, high;
        bool whole;
    };
    static const Range ranges[] = {{"timeout_ms", 1000, 86400000, true},
                                   {"concurrency", 1, 256, true},
                                   {"max_tokens", 1, 1000000, true},
                                   {"temperature", 0, 2, false},
                                   {"top_p", 0, 1, false}};
    for (const Range &r : ranges) {
        const QJsonValue v = o.value(QLatin1StringView(r.key));
        if (v.isUndefined())
            continue;
        const double x = v.toDouble();
        if (!v.isDouble() || x < r.low || x > r.high || (r.whole && x != std::floor(x))) {
            problem = QStringLiteral("%1: '%2' must be a %3 from %4 to %5, not %6")
                          .arg(who, QLatin1StringView(r.key),
                               r.whole ? QStringLiteral("whole number") : QStringLiteral("number"))
                          .arg(r.low, 0, 'g', 10)
                          .arg(r.high, 0, 'g', 10)
                          .arg(JsonText::compact(v));
            return false;
        }
    }
    // llm.json promises never to hold a key (it is shared, synced, diffed): a key put there anyway is
    // refused, not silently ignored, and the message names where keys go. The value is never repeated.
    for (const char *key : {"api_key", "apiKey", "key"}) {
        if (o.contains(QLatin1StringView(key))) {
            problem =
                QStringLiteral("%1 has a field '%2', but llm.json never holds API keys: remove the field, "
                               "then keep the key in the system keychain (\"key_source\": \"keychain\"; "
                               "Tools > Models…, the key field) or in an environment variable "
                               "(\"key_source\": \"env\" and \"key_env\": the variable's name)")
                    .arg(who, QLatin1StringView(key));
            return false;
        }
    }
    for (const char *key : {"send_seed", "allow_plain_http_key"}) {
        const QJsonValue v = o.value(QLatin1StringView(key));
        if (!v.isUndefined() && !v.isBool()) { // "false" or 0 was read as the default
            problem = QStringLiteral("%1: '%2' must be true or false, not %3")
                          .arg(who, QLatin1StringView(key), JsonText::compact(v));
            return false;
        }
    }
    for (const char *key : {"name", "preset", "base_url", "model", "key_source", "key_env", "auth", "auth_header",
                            "reasoning_effort"}) {
        const QJsonValue v = o.value(QLatin1StringView(key));
        if (!v.isUndefined() && !v.isString()) {
            problem = QStringLiteral("%1: '%2' must be a string, not %3").arg(who, QLatin1StringView(key), JsonText::compact(v));
            return false;
        }
    }
    // A word not known here was read as the default: key_source "envv" sent no key, auth "headr" a bearer
    // token.
    const auto oneOf = [&](const char *key, const QStringList &allowed) {
        const QJsonValue v = o.value(QLatin1StringView(key));
        if (v.isUndefined() || allowed.contains(v.toString()))
            return true;
        problem =
            QStringLiteral("%1: '%2' must be one of %3, not %4")
                .arg(who, QLatin1StringView(key), allowed.join(QStringLiteral(", ")), JsonText::compact(v));
        return false;
    };
    return oneOf("key_source", {QStringLiteral("none"), QStringLiteral("env"), QStringLiteral("keychain")}) &&
           oneOf("auth", {QStringLiteral("bearer"), QStringLiteral("header")});
}

// A price that is not a number was read as 0 and a negative one lowered the cost: either way --budget-usd
// would never stop a search.
bool checkPrices(const QJsonValue &value, QString &problem)
{
    if (value.isUndefined())
        return true;
    if (!value.isObject()) {
        problem =
            QStringLiteral("'prices' must be an object of models, not %1").arg(JsonText::compact(value));
        return false;
    }
    const QJsonObject prices = value.toObject();
    for (auto it = prices.begin(); it != prices.end(); ++it) {
        if (!it.value().isObject()) {
            problem = QStringLiteral("the price of '%1' must be an object, not %2")
                          .arg(it.key(), JsonText::compact(it.value()));
            return false;
        }
        const QJsonObject p = it.value().toObject();
        for (const char *key : {"input_per_mtok", "output_per_mtok"}) {
            const QJsonValue v = p.value(QLatin1StringView(key));
            if (!v.isUndefined() && (!v.isDouble() || !std::isfinite(v.toDouble()) || v.toDouble() < 0)) {
                problem =
                    QStringLiteral("the price of '%1': '%2' must be a number of dollars, 0 or more, not %3")
                        .arg(it.key(), QLatin1StringView(key), JsonText::compact(v));
                return false;
            }
        }
    }
    return true;
}
} // namespace

std::optional<LlmConfig> LlmConfig::fromJson(const QJsonObject &o, QString *error)
{
    const QJsonValue versionValue = o.value(QStringLiteral("version"));
    if (!versionValue.isUndefined() && !versionValue.isDouble()) { // "1" was read as version 0
        if (error)
            *error = QStringLiteral("unsupported LLM settings version %1: the version must be a number (this "
                                    "build reads 1 to %2)")
                         .arg(JsonText::compact(versionValue))
                         .arg(formatVersion);
        return std::nullopt;
    }
    const int version = versionValue.toInt(0);
    if (version < 1 || version > formatVersion) {
        if (error)
            *error = QStringLiteral("unsupported LLM settings version %1 (this build reads 1 to %2)")
                         .arg(version)
                         .arg(formatVersion);
        return std::nullopt;
    }
    for (const char *key : {"api_key", "apiKey", "key"}) {
        if (o.contains(QLatin1StringView(key))) {
            if (error)
                *error = QStringLiteral(
                             "there is a field '%1', but llm.json never holds API keys: remove the "
                             "field, then keep each endpoint's key in the system keychain "
                             "(\"key_source\": \"keychain\"; Tools > Models…, the key field) or in an "
                             "environment variable (\"key_source\": \"env\" and \"key_env\": the "
                             "variable's name)")
                             .arg(QLatin1StringView(key));
            return std::nullopt;
        }
    }
    LlmConfig c;
    const QJsonValue endpoints = o.value(QStringLiteral("endpoints"));
    if (!endpoints.isUndefined() && !endpoints.isArray()) {
        if (error)
            *error = QStringLiteral("'endpoints' must be an array of endpoint objects");
        return std::nullopt;
    }
    const QJsonArray list = endpoints.toArray();
    for (qsizetype i = 0; i < list.size(); ++i) {
        QString problem;
        if (!checkEndpoint(list.at(i), i, problem)) {
            if (error)
                *error = problem;
            return std::nullopt;
        }
        c.endpoints.append(Endpoint::fromJson(list.at(i).toObject()));
    }
    QString problem;
    if (!checkPrices(o.value(QStringLiteral("prices")), problem)) {
        if (error)
            *error = problem;
        return std::nullopt;
    }
    c.roster = ModelRoster::fromJson(o.value(QStringLiteral("roles")).toObject());
    c.prices = PriceTable::fromJson(o.value(QStringLiteral("prices")).toObject());
    const QJsonObject r = o.value(QStringLiteral("retry")).toObject();
    c.retry.maxAttempts = r.value(QStringLiteral("max_attempts")).toInt(c.retry.maxAttempts);
    c.retry.baseDelayMs = r.value(QStringLiteral("base_delay_ms")).toInt(c.retry.baseDelayMs);
    c.retry.maxDelayMs = r.value(QStringLiteral("max_delay_ms")).toInt(c.retry.maxDelayMs);
    c.retry.maxRetryAfterMs = r.value(QStringLiteral("max_retry_after_ms")).toInt(c.retry.maxRetryAfterMs);
    c.retry.jitter = r.value(QStringLiteral("jitter")).toDouble(c.retry.jitter);
    return c;
}

QString LlmConfig::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_LLM_CONFIG");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation))
        .filePath(QStringLiteral("AccelOpt/llm.json"));
}

std::optional<LlmConfig> LlmConfig::load(const QString &path, QString *error, QStringList *notes)
{
    QFile file(path);
    if (!file.exists())
        return LlmConfig{};
    if (RegularFile::isSpecial(path)) { // a FIFO would block the open, a device never end the read
        if (error)
            *error = QStringLiteral("%1; replace it with the JSON settings file or remove it")
                         .arg(RegularFile::refusal(path));
        return std::nullopt;
    }
    // Before anything can fail: a broken file is as private as a good one.
    for (const QString &note : LlmConfigAccess::tighten(path)) {
        qCWarning(lcLlm).noquote() << note;
        if (notes)
            *notes << note;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > 16 * 1024 * 1024) {
        if (error)
            *error = QStringLiteral("%1 is larger than 16 MB; it is not an LLM settings file").arg(path);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        if (error)
            *error = QStringLiteral("%1 is not valid JSON (%2 at byte %3); fix or remove it")
                         .arg(path, parseError.errorString())
                         .arg(parseError.offset);
        return std::nullopt;
    }
    if (!doc.isObject()) {
        if (error)
            *error = QStringLiteral("%1 must hold an object ({\"endpoints\": [...], \"roles\": {...}}), not %2; "
                                    "fix or remove it")
                         .arg(path, doc.isArray() ? QStringLiteral("an array") : QStringLiteral("a single value"));
        return std::nullopt;
    }
    QString inner;
    auto config = fromJson(doc.object(), &inner);
    if (!config && error)
        *error = QStringLiteral("%1: %2").arg(path, inner);
    return config;
}

bool LlmConfig::save(const QString &path, QString *error) const
{
    const QString folder = QFileInfo(path).absolutePath();
    const bool created = !QFileInfo::exists(folder);
    QDir().mkpath(folder);
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // On the temporary file, before it takes the name: never a moment when the settings are open to others.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(toJson()).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    // AccelOpt's folder, and a folder made just now, which nobody can have been relying on being open.
    const QStringList notes = LlmConfigAccess::tighten(path, created);
    if (!created)
        for (const QString &note : notes)
            qCWarning(lcLlm).noquote() << note;
    return true;
}
