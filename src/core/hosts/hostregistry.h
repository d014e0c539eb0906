#pragma once

#include "hosts/hostconfig.h"

#include <QList>
#include <QString>

// The user's hosts, kept in a versioned JSON file (default: <app data>/hosts.json; ACCELOPT_HOSTS_FILE or
// setPath() point elsewhere). The built-in host "local" (this machine, nkisim) always exists and is not
// stored. A file that cannot be read is reported and never overwritten, so a typo in a hand edit loses
// nothing.
class HostRegistry
{
public:
    static constexpr int fileVersion = 1;
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
};
