#include "llm/endpoint.h"

#include <QHostAddress>
#include <QJsonArray>
#include <QUrl>

namespace {
void putOptional(QJsonObject &o, const QString &key, const std::optional<double> &value)
{
    if (value)
        o.insert(key, *value);
}
} // namespace

QString Endpoint::keySourceName(KeySource source)
{
    switch (source) {
    case KeySource::None:
        return QStringLiteral("none");
    case KeySource::Environment:
        return QStringLiteral("env");
    case KeySource::Keychain:
        return QStringLiteral("keychain");
    }
    return QStringLiteral("none");
}

Endpoint::KeySource Endpoint::keySourceFromName(const QString &name)
{
    if (name == QStringLiteral("env"))
        return KeySource::Environment;
    if (name == QStringLiteral("keychain"))
        return KeySource::Keychain;
    return KeySource::None;
}

QJsonObject Endpoint::toJson() const
{
    QJsonObject o{{QStringLiteral("name"), name},
                  {QStringLiteral("preset"), preset},
                  {QStringLiteral("base_url"), baseUrl},
                  {QStringLiteral("model"), model},
                  {QStringLiteral("key_source"), keySourceName(keySource)},
                  {QStringLiteral("key_env"), keyEnvVar},
                  {QStringLiteral("auth"),
                   authStyle == AuthStyle::Bearer ? QStringLiteral("bearer") : QStringLiteral("header")},
                  {QStringLiteral("auth_header"), authHeader},
                  {QStringLiteral("reasoning_effort"), reasoningEffort},
                  {QStringLiteral("timeout_ms"), timeoutMs},
                  {QStringLiteral("concurrency"), concurrency},
                  {QStringLiteral("send_seed"), sendSeed}};
    if (!models.isEmpty()) // written only when there are some: older files and readers stay as they were
        o.insert(QStringLiteral("models"), QJsonArray::fromStringList(models));
    if (allowPlainHttpKey) // written only when set, so a file never suggests it by default
        o.insert(QStringLiteral("allow_plain_http_key"), true);
    QJsonArray headers;
    for (const auto &[header, value] : extraHeaders)
        headers.append(QJsonArray{header, value});
    o.insert(QStringLiteral("extra_headers"), headers);
    putOptional(o, QStringLiteral("temperature"), temperature);
    putOptional(o, QStringLiteral("top_p"), topP);
    if (maxTokens)
        o.insert(QStringLiteral("max_tokens"), *maxTokens);
    return o;
}

Endpoint Endpoint::fromJson(const QJsonObject &o)
{
    Endpoint e;
    e.name = o.value(QStringLiteral("name")).toString();
    e.preset = o.value(QStringLiteral("preset")).toString();
    e.baseUrl = o.value(QStringLiteral("base_url")).toString();
    e.model = o.value(QStringLiteral("model")).toString();
    for (const QJsonValue &m : o.value(QStringLiteral("models")).toArray())
        if (const QString served = m.toString().trimmed(); !served.isEmpty())
            e.models << served;
    e.keySource = keySourceFromName(o.value(QStringLiteral("key_source")).toString());
    e.keyEnvVar = o.value(QStringLiteral("key_env")).toString();
    e.authStyle = o.value(QStringLiteral("auth")).toString() == QStringLiteral("header")
                      ? AuthStyle::ApiKeyHeader
                      : AuthStyle::Bearer;
    e.authHeader = o.value(QStringLiteral("auth_header")).toString(e.authHeader);
    for (const QJsonValue &pair : o.value(QStringLiteral("extra_headers")).toArray()) {
        const QJsonArray a = pair.toArray();
        if (a.size() == 2)
            e.extraHeaders.append({a.at(0).toString(), a.at(1).toString()});
    }
    if (o.contains(QStringLiteral("temperature")))
        e.temperature = o.value(QStringLiteral("temperature")).toDouble();
    if (o.contains(QStringLiteral("top_p")))
        e.topP = o.value(QStringLiteral("top_p")).toDouble();
    if (o.contains(QStringLiteral("max_tokens")))
        e.maxTokens = o.value(QStringLiteral("max_tokens")).toInt();
    e.reasoningEffort = o.value(QStringLiteral("reasoning_effort")).toString();
    e.timeoutMs = o.value(QStringLiteral("timeout_ms")).toInt(e.timeoutMs);
    e.concurrency = o.value(QStringLiteral("concurrency")).toInt(e.concurrency);
    e.sendSeed = o.value(QStringLiteral("send_seed")).toBool(e.sendSeed);
    e.allowPlainHttpKey = o.value(QStringLiteral("allow_plain_http_key")).toBool(false);
    return e;
}

QStringList Endpoint::problems() const
{
    QStringList out;
    if (name.trimmed().isEmpty())
        out << QStringLiteral("the endpoint has no name");
    const QUrl url(baseUrl);
    if (!url.isValid() || (url.scheme() != QStringLiteral("http") && url.scheme() != QStringLiteral("https")))
        out << QStringLiteral("base URL '%1' is not an http(s) URL").arg(baseUrl);
    if (model.trimmed().isEmpty())
        out << QStringLiteral("no model is set");
    if (keySource == KeySource::Environment && keyEnvVar.trimmed().isEmpty())
        out << QStringLiteral("the key comes from an environment variable, but none is named");
    if (timeoutMs < 1)
        out << QStringLiteral("the timeout must be positive");
    if (concurrency < 1)
        out << QStringLiteral("the concurrency limit must be at least 1");
    if (temperature && (*temperature < 0 || *temperature > 2))
        out << QStringLiteral("temperature %1 is outside 0–2").arg(*temperature);
    if (topP && (*topP <= 0 || *topP > 1))
        out << QStringLiteral("top_p %1 is outside (0, 1]").arg(*topP);
    for (const auto &header : extraHeaders)
        if (header.first.compare(QStringLiteral("authorization"), Qt::CaseInsensitive) == 0)
            out << QStringLiteral("put the key in the keychain or an environment variable, not in an "
                                  "Authorization header");
    if (sendsKeyInClear() && !allowPlainHttpKey)
        out << QStringLiteral(
                   "its API key would travel unencrypted over plain http:// to %1, which is not this "
                   "machine: use an https:// base URL, or, only if the network to it is trusted, "
                   "set \"allow_plain_http_key\": true on the endpoint in llm.json")
                   .arg(QUrl(baseUrl.trimmed()).host());
    return out;
}

QStringList Endpoint::servedModels() const
{
    QStringList out;
    for (const QString &m : QStringList{model} + models)
        if (const QString served = m.trimmed(); !served.isEmpty() && !out.contains(served))
            out << served;
    return out;
}

Endpoint Endpoint::forModel(const QString &which) const
{
    Endpoint e = *this;
    if (!which.trimmed().isEmpty())
        e.model = which.trimmed();
    return e;
}

bool Endpoint::plainHttpOffMachine() const
{
    const QUrl url(baseUrl.trimmed());
    return url.scheme().compare(QStringLiteral("http"), Qt::CaseInsensitive) == 0 &&
           !isLoopbackHost(url.host());
}

bool Endpoint::isLoopbackHost(const QString &host)
{
    QString h = host.trimmed().toLower();
    if (h.endsWith(u'.')) // "localhost." is the same name, fully qualified
        h.chop(1);
    // Only the name itself: "x.localhost" is loopback by RFC 6761 but left to DNS by glibc.
    if (h == QStringLiteral("localhost"))
        return true;
    if (h.startsWith(u'[') && h.endsWith(u']'))
        h = h.mid(1, h.size() - 2);
    const QHostAddress address(h);
    return !address.isNull() && address.isLoopback();
}
