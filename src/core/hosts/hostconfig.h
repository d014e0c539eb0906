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
        Ssh,
        Slurm // a SLURM cluster: its submit host is this machine (sshHost empty) or a head node over SSH
    };

    QString name;
    Kind kind = Kind::Local;
    // Runner side
    QString python; // interpreter on the host; empty: /usr/bin/python3 if present, else python3
    QString venv;   // optional venv folder to activate (its bin/python is used)
    QMap<QString, QString> environment;
    QString backend = QStringLiteral("sim");
    QString target = QStringLiteral("trn1");
    int slotCount = 1; // NeuronCores, or simulator workers (a SLURM host: per allocated node)
    double weight =
        1; // a share of the pool's work: with free slots on several hosts, the least loaded per weight
    // SLURM side (Kind::Slurm): the allocation the slots run in; empty fields are the cluster's defaults
    QString partition;
    QString account;
    QString timeLimit; // as salloc --time takes it, e.g. 2:00:00
    QString gres;      // e.g. neuron:16
    QString constraint;
    int nodes = 1;
    // SSH side (Kind::Ssh, or a SLURM head node); unset fields come from ~/.ssh/config for `sshHost`
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
