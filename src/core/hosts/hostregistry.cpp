#include "hosts/hostregistry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

QString HostRegistry::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_HOSTS_FILE");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("hosts.json"));
}

HostConfig HostRegistry::builtinLocal()
{
    HostConfig local;
    local.name = QStringLiteral("local");
    local.kind = HostConfig::Kind::Local;
    local.slotCount = 1;
    return local;
}

HostRegistry::HostRegistry(const QString &path) : m_path(path) {}

bool HostRegistry::load(QString &error)
{
    m_hosts.clear();
    m_loadFailed = false;
    QFile file(m_path);
    if (!file.exists())
        return true;
    if (!file.open(QIODevice::ReadOnly)) {
        m_loadFailed = true;
        error = QStringLiteral("cannot read the hosts file %1: %2").arg(m_path, file.errorString());
        return false;
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(file.read(4 * 1024 * 1024), &parse);
    if (parse.error != QJsonParseError::NoError || !doc.isObject()) {
        m_loadFailed = true;
        error =
            QStringLiteral("the hosts file %1 is not valid JSON (offset %2: %3); fix or move it, it was left "
                           "untouched")
                .arg(m_path)
                .arg(parse.offset)
                .arg(parse.error == QJsonParseError::NoError ? QStringLiteral("not an object")
                                                             : parse.errorString());
        return false;
    }
    const QJsonObject root = doc.object();
    const int version = root.value(QStringLiteral("version")).toInt(0);
    if (version != fileVersion) {
        m_loadFailed = true;
        error = QStringLiteral("the hosts file %1 has version %2; this build reads version %3")
                    .arg(m_path)
                    .arg(version)
                    .arg(fileVersion);
        return false;
    }
    const QJsonArray hosts = root.value(QStringLiteral("hosts")).toArray();
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        HostConfig config;
        QString why;
        if (!HostConfig::fromJson(hosts.at(i).toObject(), config, why)) {
            m_loadFailed = true;
            error = QStringLiteral("%1, entry %2: %3").arg(m_path).arg(i + 1).arg(why);
            return false;
        }
        m_hosts.append(config);
    }
    return true;
}

bool HostRegistry::save(QString &error) const
{
    if (m_loadFailed) {
        error = QStringLiteral("the hosts file %1 could not be read, so it is not overwritten").arg(m_path);
        return false;
    }
    QJsonArray hosts;
    for (const HostConfig &config : m_hosts)
        hosts.append(config.toJson());
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile file(m_path);
    if (!file.open(QIODevice::WriteOnly)) {
        error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    file.write(
        QJsonDocument(QJsonObject{{QStringLiteral("version"), fileVersion}, {QStringLiteral("hosts"), hosts}})
            .toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    return true;
}

QList<HostConfig> HostRegistry::hosts() const
{
    QList<HostConfig> all{builtinLocal()};
    all += m_hosts;
    return all;
}

bool HostRegistry::find(const QString &name, HostConfig &out) const
{
    for (const HostConfig &config : hosts())
        if (config.name == name) {
            out = config;
            return true;
        }
    return false;
}

bool HostRegistry::add(const HostConfig &config, QString &error)
{
    if (config.name == QStringLiteral("local")) {
        error = QStringLiteral("'local' is the built-in host; choose another name");
        return false;
    }
    for (HostConfig &existing : m_hosts)
        if (existing.name == config.name) {
            existing = config; // add doubles as edit
            return true;
        }
    m_hosts.append(config);
    return true;
}

bool HostRegistry::remove(const QString &name, QString &error)
{
    for (qsizetype i = 0; i < m_hosts.size(); ++i)
        if (m_hosts.at(i).name == name) {
            m_hosts.removeAt(i);
            return true;
        }
    error = name == QStringLiteral("local") ? QStringLiteral("the built-in host 'local' cannot be removed")
                                            : QStringLiteral("no host named '%1'").arg(name);
    return false;
}
