#include "hosts/hostconfig.h"

#include "common/jsontext.h"
#include "model/targets.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

QString HostConfig::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Ssh:
        return QStringLiteral("ssh");
    case Kind::Slurm:
        return QStringLiteral("slurm");
    case Kind::Local:
        break;
    }
    return QStringLiteral("local");
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
    if (weight != 1)
        o.insert(QStringLiteral("weight"), weight);
    if (kind == Kind::Slurm) {
        o.insert(QStringLiteral("partition"), partition);
        o.insert(QStringLiteral("account"), account);
        o.insert(QStringLiteral("time_limit"), timeLimit);
        o.insert(QStringLiteral("gres"), gres);
        o.insert(QStringLiteral("constraint"), constraint);
        o.insert(QStringLiteral("nodes"), nodes);
    }
    if (kind == Kind::Ssh || (kind == Kind::Slurm && !sshHost.isEmpty())) {
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

const QStringList &HostConfig::jsonKeys()
{
    static const QStringList keys{
        QStringLiteral("name"),        QStringLiteral("kind"),       QStringLiteral("python"),
        QStringLiteral("venv"),        QStringLiteral("env"),        QStringLiteral("backend"),
        QStringLiteral("target"),      QStringLiteral("slots"),      QStringLiteral("ssh_host"),
        QStringLiteral("user"),        QStringLiteral("port"),       QStringLiteral("identity_file"),
        QStringLiteral("deploy_root"), QStringLiteral("ssh_config"), QStringLiteral("known_hosts"),
        QStringLiteral("weight"),      QStringLiteral("partition"),  QStringLiteral("account"),
        QStringLiteral("time_limit"),  QStringLiteral("gres"),       QStringLiteral("constraint"),
        QStringLiteral("nodes")};
    return keys;
}

namespace {
// A field of the wrong type was read as its default ("slots": "4" as 1, "port": "22" as 0): refuse it.
bool checkTypes(const QJsonObject &o, QString &error)
{
    const QString who = o.value(QStringLiteral("name")).isString()
                            ? QStringLiteral("host %1").arg(o.value(QStringLiteral("name")).toString())
                            : QStringLiteral("a host");
    for (const QString &key : HostConfig::jsonKeys()) {
        const QJsonValue v = o.value(key);
        if (v.isUndefined())
            continue;
        QString expected;
        if (key == QStringLiteral("slots") || key == QStringLiteral("port") ||
            key == QStringLiteral("nodes")) {
            if (!v.isDouble() || v.toDouble() != double(qint64(v.toDouble())))
                expected = QStringLiteral("a whole number");
        } else if (key == QStringLiteral("weight")) {
            if (!v.isDouble())
                expected = QStringLiteral("a number");
        } else if (key == QStringLiteral("env")) {
            if (!v.isObject())
                expected = QStringLiteral("an object of NAME: \"value\" strings");
            else
                for (const QJsonValue &value : v.toObject())
                    if (!value.isString())
                        expected = QStringLiteral("an object of NAME: \"value\" strings");
        } else if (!v.isString()) {
            expected = QStringLiteral("a string");
        }
        if (!expected.isEmpty()) {
            error = QStringLiteral("%1: '%2' must be %3, not %4")
                        .arg(who, key, expected, JsonText::compact(v, 80));
            return false;
        }
    }
    return true;
}
} // namespace

bool HostConfig::fromJson(const QJsonObject &o, HostConfig &out, QString &error)
{
    if (!checkTypes(o, error))
        return false;
    HostConfig c;
    c.name = o.value(QStringLiteral("name")).toString().trimmed();
    static const QRegularExpression validName(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"));
    if (!validName.match(c.name).hasMatch()) {
        error = QStringLiteral("host name '%1' must be 1-64 letters, digits, '.', '_' or '-'").arg(c.name);
        return false;
    }
    const QString kind = o.value(QStringLiteral("kind")).toString(QStringLiteral("local"));
    if (kind != QStringLiteral("local") && kind != QStringLiteral("ssh") && kind != QStringLiteral("slurm")) {
        error = QStringLiteral("host %1: kind must be 'local', 'ssh' or 'slurm', not '%2'").arg(c.name, kind);
        return false;
    }
    c.kind = kind == QStringLiteral("ssh")     ? Kind::Ssh
             : kind == QStringLiteral("slurm") ? Kind::Slurm
                                               : Kind::Local;
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
    if (!Targets::isKnown(c.target)) {
        error =
            QStringLiteral("host %1: target must be %2, not '%3'").arg(c.name, Targets::listed(), c.target);
        return false;
    }
    c.slotCount = o.value(QStringLiteral("slots")).toInt(1);
    if (c.slotCount < 1 || c.slotCount > 256) {
        error = QStringLiteral("host %1: slots must be between 1 and 256").arg(c.name);
        return false;
    }
    c.weight = o.value(QStringLiteral("weight")).toDouble(1);
    if (!(c.weight > 0 && c.weight <= 1000)) {
        error = QStringLiteral("host %1: weight must be a number above 0 and at most 1000").arg(c.name);
        return false;
    }
    c.partition = o.value(QStringLiteral("partition")).toString();
    c.account = o.value(QStringLiteral("account")).toString();
    c.timeLimit = o.value(QStringLiteral("time_limit")).toString();
    c.gres = o.value(QStringLiteral("gres")).toString();
    c.constraint = o.value(QStringLiteral("constraint")).toString();
    c.nodes = o.value(QStringLiteral("nodes")).toInt(1);
    if (c.nodes < 1 || c.nodes > 1024) {
        error = QStringLiteral("host %1: nodes must be between 1 and 1024").arg(c.name);
        return false;
    }
    if (c.kind == Kind::Slurm && c.slotCount * c.nodes > 4096) {
        error = QStringLiteral("host %1: slots x nodes must be at most 4096").arg(c.name);
        return false;
    }
    c.sshHost = o.value(QStringLiteral("ssh_host")).toString();
    c.user = o.value(QStringLiteral("user")).toString();
    // What goes on salloc's and ssh's command lines: a value that looks like an option would change their
    // meaning (ssh_host "-oProxyCommand=..." runs a command), and one with spaces is no host or account.
    for (const auto &[key, value] : {std::pair{"partition", c.partition},
                                     {"account", c.account},
                                     {"time_limit", c.timeLimit},
                                     {"gres", c.gres},
                                     {"constraint", c.constraint},
                                     {"ssh_host", c.sshHost},
                                     {"user", c.user}})
        if (value.startsWith(u'-') || value.contains(QRegularExpression(QStringLiteral("\\s")))) {
            error = QStringLiteral("host %1: %2 '%3' must not start with '-' or hold spaces")
                        .arg(c.name, QLatin1String(key), value);
            return false;
        }
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
