#pragma once

#include "hosts/hostconfig.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

// The user's hosts, kept in a versioned JSON file (default: <app data>/hosts.json; ACCELOPT_HOSTS_FILE or
// setPath() point elsewhere). The built-in host "local" (this machine, nkisim) always exists and is not
// stored. A file that cannot be read, or is malformed, is reported and never overwritten, so a typo in a hand
// edit loses nothing; fields this build does not know (a newer version's, a person's notes) are kept on save.
class HostRegistry
{
public:
    static constexpr int fileVersion = 1;
    static constexpr qint64 maxFileBytes = 4 * 1024 * 1024;
    static QString defaultPath();
    static HostConfig builtinLocal();

    explicit HostRegistry(const QString &path = defaultPath());

    bool load(QString &error);
    bool save(QString &error) const;
    QList<HostConfig> hosts() const; // built-in first
    bool find(const QString &name, HostConfig &out) const;
    bool add(const HostConfig &config, QString &error);
    bool remove(const QString &name, QString &error);
    QString path() const { return m_path; }

private:
    QString m_path;
    QList<HostConfig> m_hosts;
    bool m_loadFailed = false;
    QJsonObject m_root;                  // the file as read: its other top-level fields survive a save
    QHash<QString, QJsonObject> m_raw;   // each host's entry as read, by name
};
