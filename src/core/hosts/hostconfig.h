#pragma once

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

// What the user configured for one host: how to reach it and how to run the runner there.
struct HostConfig
{
    enum class Kind
    {
        Local,
        Ssh
    };

    QString name;
    Kind kind = Kind::Local;
    // Runner side
    QString python; // interpreter on the host; empty: /usr/bin/python3 if present, else python3
    QString venv;   // optional venv folder to activate (its bin/python is used)
    QMap<QString, QString> environment;
    QString backend = QStringLiteral("sim");
    QString target = QStringLiteral("trn1");
    int slotCount = 1; // NeuronCores, or simulator workers
    // SSH side (Kind::Ssh); unset fields come from ~/.ssh/config for `sshHost`
    QString sshHost; // alias or host name as in ~/.ssh/config
    QString user;
    int port = 0; // 0: from ssh config, else 22
    QString identityFile;
    QString deployRoot;     // remote folder holding deployed runners; empty: ~/.cache/accelopt/runners
    QString sshConfigFile;  // empty: $ACCELOPT_SSH_CONFIG, else ~/.ssh/config
    QString knownHostsFile; // empty: $ACCELOPT_KNOWN_HOSTS, else ~/.ssh/known_hosts

    QJsonObject toJson() const;
    // Reads one host; on a bad entry returns false with `error` saying which field and why.
    static const QStringList &jsonKeys(); // the fields toJson writes; any other field is someone else's
    static bool fromJson(const QJsonObject &o, HostConfig &out, QString &error);
    static QString kindName(Kind kind);
    QString pythonForLocal() const;
};
