#include "hosts/hostconfig.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

QString HostConfig::kindName(Kind kind)
{
    return kind == Kind::Ssh ? QStringLiteral("ssh") : QStringLiteral("local");
}

QJsonObject HostConfig::toJson() const
{
    QJsonObject env;
    for (auto it = environment.begin(); it != environment.end(); ++it)
        env.insert(it.key(), it.value());
    QJsonObject o{{QStringLiteral("name"), name},     {QStringLiteral("kind"), kindName(kind)},
                  {QStringLiteral("python"), python}, {QStringLiteral("venv"), venv},
                  {QStringLiteral("env"), env},       {QStringLiteral("backend"), backend},
                  {QStringLiteral("target"), target}, {QStringLiteral("slots"), slotCount}};
    if (kind == Kind::Ssh) {
        o.insert(QStringLiteral("ssh_host"), sshHost);
        o.insert(QStringLiteral("user"), user);
        o.insert(QStringLiteral("port"), port);
        o.insert(QStringLiteral("identity_file"), identityFile);
        o.insert(QStringLiteral("deploy_root"), deployRoot);
        if (!sshConfigFile.isEmpty())
            o.insert(QStringLiteral("ssh_config"), sshConfigFile);
        if (!knownHostsFile.isEmpty())
            o.insert(QStringLiteral("known_hosts"), knownHostsFile);
    }
    return o;
}

bool HostConfig::fromJson(const QJsonObject &o, HostConfig &out, QString &error)
{
    HostConfig c;
    c.name = o.value(QStringLiteral("name")).toString().trimmed();
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"));
    if (!validName.match(c.name).hasMatch()) {
        error = QStringLiteral("host name '%1' must be 1-64 letters, digits, '.', '_' or '-'").arg(c.name);
        return false;
    }
    const QString kind = o.value(QStringLiteral("kind")).toString(QStringLiteral("local"));
    if (kind != QStringLiteral("local") && kind != QStringLiteral("ssh")) {
        error = QStringLiteral("host %1: kind must be 'local' or 'ssh', not '%2'").arg(c.name, kind);
        return false;
    }
    c.kind = kind == QStringLiteral("ssh") ? Kind::Ssh : Kind::Local;
    c.python = o.value(QStringLiteral("python")).toString();
    c.venv = o.value(QStringLiteral("venv")).toString();
    const QJsonObject env = o.value(QStringLiteral("env")).toObject();
    for (auto it = env.begin(); it != env.end(); ++it)
        c.environment.insert(it.key(), it.value().toString());
    c.backend = o.value(QStringLiteral("backend")).toString(QStringLiteral("sim"));
    if (c.backend != QStringLiteral("sim") && c.backend != QStringLiteral("neuron")) {
        error = QStringLiteral("host %1: backend must be 'sim' or 'neuron', not '%2'").arg(c.name, c.backend);
        return false;
    }
    c.target = o.value(QStringLiteral("target")).toString(QStringLiteral("trn1"));
    if (c.target != QStringLiteral("trn1") && c.target != QStringLiteral("trn2")) {
        error = QStringLiteral("host %1: target must be 'trn1' or 'trn2', not '%2'").arg(c.name, c.target);
        return false;
    }
    c.slotCount = o.value(QStringLiteral("slots")).toInt(1);
    if (c.slotCount < 1 || c.slotCount > 256) {
        error = QStringLiteral("host %1: slots must be between 1 and 256").arg(c.name);
        return false;
    }
    c.sshHost = o.value(QStringLiteral("ssh_host")).toString();
    c.user = o.value(QStringLiteral("user")).toString();
    c.port = o.value(QStringLiteral("port")).toInt(0);
    if (c.port < 0 || c.port > 65535) {
        error = QStringLiteral("host %1: port %2 is out of range").arg(c.name).arg(c.port);
        return false;
    }
    c.identityFile = o.value(QStringLiteral("identity_file")).toString();
    c.deployRoot = o.value(QStringLiteral("deploy_root")).toString();
    c.sshConfigFile = o.value(QStringLiteral("ssh_config")).toString();
    c.knownHostsFile = o.value(QStringLiteral("known_hosts")).toString();
    if (c.kind == Kind::Ssh && c.sshHost.isEmpty()) {
        error =
            QStringLiteral("host %1: an ssh host needs ssh_host (an alias from ~/.ssh/config or a host name)")
                .arg(c.name);
        return false;
    }
    out = c;
    return true;
}

QString HostConfig::pythonForLocal() const
{
    if (!venv.isEmpty())
        return QDir(venv).filePath(QStringLiteral("bin/python"));
    if (!python.isEmpty())
        return python;
    // Debian's interpreter carries numpy; a pyenv python3 first on PATH may not.
    return QFileInfo::exists(QStringLiteral("/usr/bin/python3")) ? QStringLiteral("/usr/bin/python3")
                                                                 : QStringLiteral("python3");
}
