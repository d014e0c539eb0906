#include "hosts/hostregistry.h"

#include "common/datapaths.h"
#include "common/jsontext.h"
#include "common/privatefiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>

QString HostRegistry::defaultPath()
{
    const QString fromEnv = qEnvironmentVariable("ACCELOPT_HOSTS_FILE");
    if (!fromEnv.isEmpty())
        return fromEnv;
    return DataPaths::userDataFile(QStringLiteral("hosts.json"));
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
    m_root = {};
    m_raw.clear();
    m_loadFailed = false;
    QFile file(m_path);
    if (!file.exists())
        return true;
    const auto refuse = [&](const QString &why) {
        m_loadFailed = true;
        error = QStringLiteral("%1; fix or move it, it was left untouched").arg(why);
        return false;
    };
    if (!QFileInfo(m_path).isFile())
        return refuse(QStringLiteral("the hosts file %1 is not a regular file").arg(m_path));
    if (file.size() > maxFileBytes)
        return refuse(QStringLiteral("the hosts file %1 is %2 MiB, more than a hosts file may be (%3 MiB)")
                          .arg(m_path)
                          .arg(double(file.size()) / (1024 * 1024), 0, 'f', 1)
                          .arg(maxFileBytes / (1024 * 1024)));
    if (!file.open(QIODevice::ReadOnly)) {
        m_loadFailed = true;
        error = QStringLiteral("cannot read the hosts file %1: %2").arg(m_path, file.errorString());
        return false;
    }
    PrivateFiles::tightenAndLog(m_path);
    if (PrivateFiles::isOwnDataFolder(QFileInfo(m_path).absolutePath()))
        PrivateFiles::tightenAndLog(QFileInfo(m_path).absolutePath());
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError)
        return refuse(QStringLiteral("the hosts file %1 is not valid JSON (at byte %2: %3)")
                          .arg(m_path)
                          .arg(parse.offset)
                          .arg(parse.errorString()));
    if (!doc.isObject())
        return refuse(QStringLiteral("the hosts file %1 must hold an object {\"version\": %2, \"hosts\": [...]}, "
                                     "not %3")
                          .arg(m_path)
                          .arg(fileVersion)
                          .arg(doc.isArray() ? QStringLiteral("an array") : QStringLiteral("a single value")));
    const QJsonObject root = doc.object();
    const QJsonValue version = root.value(QStringLiteral("version"));
    if (version.toInt(0) != fileVersion || version.toDouble() != fileVersion)
        return refuse(QStringLiteral("the hosts file %1 has version %2; this build reads version %3")
                          .arg(m_path, JsonText::compact(version, 40))
                          .arg(fileVersion));
    const QJsonValue hostsValue = root.value(QStringLiteral("hosts"));
    if (!hostsValue.isUndefined() && !hostsValue.isArray())
        return refuse(QStringLiteral("the hosts file %1: \"hosts\" must be an array of host entries").arg(m_path));
    const QJsonArray hosts = hostsValue.toArray();
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        if (!hosts.at(i).isObject())
            return refuse(QStringLiteral("%1, entry %2: a host entry must be an object").arg(m_path).arg(i + 1));
        HostConfig config;
        QString why;
        if (!HostConfig::fromJson(hosts.at(i).toObject(), config, why))
            return refuse(QStringLiteral("%1, entry %2: %3").arg(m_path).arg(i + 1).arg(why));
        if (config.name == builtinLocal().name)
            return refuse(QStringLiteral("%1, entry %2: 'local' is the built-in host's name; rename the entry")
                              .arg(m_path)
                              .arg(i + 1));
        if (m_raw.contains(config.name))
            return refuse(QStringLiteral("%1, entry %2: a second host named '%3'").arg(m_path).arg(i + 1).arg(config.name));
        m_raw.insert(config.name, hosts.at(i).toObject());
        m_hosts.append(config);
    }
    m_root = root;
    return true;
}

bool HostRegistry::save(QString &error) const
{
    if (m_loadFailed) {
        error = QStringLiteral("the hosts file %1 could not be read, so it is not overwritten").arg(m_path);
        return false;
    }
    QJsonArray hosts;
    for (const HostConfig &config : m_hosts) {
        QJsonObject entry = m_raw.value(config.name);
        for (const QString &key : HostConfig::jsonKeys())
            entry.remove(key);
        const QJsonObject ours = config.toJson();
        for (auto it = ours.begin(); it != ours.end(); ++it)
            entry.insert(it.key(), it.value());
        hosts.append(entry);
    }
    QJsonObject root = m_root;
    root.insert(QStringLiteral("version"), fileVersion);
    root.insert(QStringLiteral("hosts"), hosts);
    if (!PrivateFiles::makeFolder(QFileInfo(m_path).absolutePath(), error))
        return false;
    QSaveFile file(m_path);
    // The hosts a user reaches are theirs alone: the new file is 0600 before a byte is written (QSaveFile
    // gives a new file 0666 less the umask, and an existing one its old mode).
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner)) {
        error = QStringLiteral("cannot write %1: %2").arg(m_path, file.errorString());
        return false;
    }
    file.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
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
