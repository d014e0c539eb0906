#include "hostscommand.h"

#include "clisshprompter.h"
#include "hosts/host.h"
#include "hosts/hostprobe.h"
#include "hosts/hostregistry.h"

#include "subcommandparser.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>

namespace {
bool parseOrFail(QCommandLineParser &parser, const QString &command, const QStringList &arguments,
                 int &status)
{
    return SubcommandParser::parse(parser, QStringLiteral("accelopt hosts ") + command, arguments, status);
}

QString address(const HostConfig &c)
{
    if (c.kind == HostConfig::Kind::Local || (c.kind == HostConfig::Kind::Slurm && c.sshHost.isEmpty()))
        return c.kind == HostConfig::Kind::Slurm ? QStringLiteral("SLURM from this machine")
                                                 : QStringLiteral("this machine");
    return (c.kind == HostConfig::Kind::Slurm ? QStringLiteral("SLURM at ") : QString()) +
           (c.user.isEmpty() ? QString() : c.user + u'@') + c.sshHost +
           (c.port > 0 ? QStringLiteral(":%1").arg(c.port) : QString());
}
} // namespace

int HostsCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    const QStringList rest = arguments.mid(1);
    if (sub == QStringLiteral("list"))
        return list(rest);
    if (sub == QStringLiteral("add"))
        return add(rest);
    if (sub == QStringLiteral("remove"))
        return remove(rest);
    if (sub == QStringLiteral("check"))
        return check(rest);
    if (sub.isEmpty() || sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        // Asked for, the usage is the output; without a subcommand it is a usage error's text.
        QTextStream(sub.isEmpty() ? stderr : stdout)
            << "Usage: accelopt hosts list|add|check|remove ...\n"
               "  list [--json]                 the hosts, the built-in 'local' first\n"
               "  add NAME --ssh HOST [options] add or replace an SSH host (see add --help)\n"
               "  add NAME --slurm HEAD [--partition P --account A --time T --gres G --nodes N]\n"
               "                                a SLURM cluster at its head node ('local': this machine)\n"
               "  check NAME [--accept-fingerprint SHA256:...]\n"
               "                                connect, verify the host key, deploy, start a runner\n"
               "  remove NAME                   forget a host\n"
               "Hosts are kept in "
            << HostRegistry::defaultPath() << "\n";
        return sub.isEmpty() ? 2 : 0;
    }
    SubcommandParser::err() << "accelopt hosts: unknown subcommand '" << sub
                            << "' (list, add, check, remove)\n";
    return 2;
}

int HostsCommand::list(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addOption({QStringLiteral("json"), QStringLiteral("One JSON object per host.")});
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("list"), arguments, status))
        return status;
    if (!parser.positionalArguments().isEmpty()) {
        SubcommandParser::err() << "accelopt hosts list: unexpected argument '"
                                << parser.positionalArguments().first() << "'\n";
        return 2;
    }
    HostRegistry registry;
    QString error;
    if (!registry.load(error)) {
        SubcommandParser::err() << "accelopt hosts list: " << error << "\n";
        return 1;
    }
    QTextStream out(stdout);
    for (const HostConfig &c : registry.hosts()) {
        if (parser.isSet(QStringLiteral("json")))
            out << QJsonDocument(c.toJson()).toJson(QJsonDocument::Compact) << "\n";
        else
            out << QStringLiteral("%1 %2 %3 %4/%5 slots=%6\n")
                       .arg(c.name, -16)
                       .arg(HostConfig::kindName(c.kind), -6)
                       .arg(address(c), -28)
                       .arg(c.backend, c.target)
                       .arg(c.slotCount);
    }
    return 0;
}

int HostsCommand::add(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("A short name for the host."));
    parser.addOptions({
        {QStringLiteral("ssh"), QStringLiteral("SSH host: an alias from ~/.ssh/config or a host name."),
         QStringLiteral("HOST")},
        {QStringLiteral("local"),
         QStringLiteral("Another configuration of this machine (other python, slots).")},
        {QStringLiteral("slurm"),
         QStringLiteral(
             "A SLURM cluster reached at its head node HEAD (an SSH host, as --ssh takes), or 'local' "
             "when this machine is a submit host. Its slots run as srun steps of one allocation."),
         QStringLiteral("HEAD")},
        {QStringLiteral("partition"), QStringLiteral("SLURM partition (default: the cluster's)."),
         QStringLiteral("P")},
        {QStringLiteral("account"), QStringLiteral("SLURM account to charge."), QStringLiteral("A")},
        {QStringLiteral("time"), QStringLiteral("Time limit of the allocation, as salloc --time takes it."),
         QStringLiteral("T")},
        {QStringLiteral("gres"), QStringLiteral("Generic resources per node, e.g. neuron:16."),
         QStringLiteral("G")},
        {QStringLiteral("constraint"), QStringLiteral("Node features the allocation needs."),
         QStringLiteral("C")},
        {QStringLiteral("nodes"), QStringLiteral("Nodes to allocate (default 1); --slots is per node."),
         QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("weight"),
         QStringLiteral("This host's share of the work against other hosts with free slots (default 1)."),
         QStringLiteral("W"), QStringLiteral("1")},
        {QStringLiteral("user"), QStringLiteral("SSH user (default: from ssh config, else yours)."),
         QStringLiteral("USER")},
        {QStringLiteral("port"), QStringLiteral("SSH port (default: from ssh config, else 22)."),
         QStringLiteral("PORT")},
        {QStringLiteral("identity"), QStringLiteral("Private key file (default: agent and ssh config)."),
         QStringLiteral("FILE")},
        {QStringLiteral("python"), QStringLiteral("Interpreter on the host with numpy (default python3)."),
         QStringLiteral("PATH")},
        {QStringLiteral("venv"), QStringLiteral("A venv on the host to activate (Neuron hosts: under /opt)."),
         QStringLiteral("DIR")},
        {QStringLiteral("env"), QStringLiteral("Environment for the runner, repeatable."),
         QStringLiteral("KEY=VALUE")},
        {QStringLiteral("backend"), QStringLiteral("sim or neuron (default sim)."), QStringLiteral("BACKEND"),
         QStringLiteral("sim")},
        {QStringLiteral("target"), QStringLiteral("trn1, trn2 or trn3 (default trn1)."),
         QStringLiteral("TARGET"), QStringLiteral("trn1")},
        {QStringLiteral("slots"), QStringLiteral("Parallel evaluations: NeuronCores or simulator workers."),
         QStringLiteral("N"), QStringLiteral("1")},
        {QStringLiteral("deploy-root"), QStringLiteral("Remote folder for deployed runners."),
         QStringLiteral("DIR")},
        {QStringLiteral("known-hosts"),
         QStringLiteral("known_hosts file to use (default ~/.ssh/known_hosts)."), QStringLiteral("FILE")},
        {QStringLiteral("ssh-config"), QStringLiteral("ssh config file to use (default ~/.ssh/config)."),
         QStringLiteral("FILE")},
    });
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("add"), arguments, status))
        return status;
    if (parser.positionalArguments().size() != 1) {
        SubcommandParser::err()
            << "accelopt hosts add: give one host name, e.g. accelopt hosts add trn1-dev --ssh trn1-dev\n";
        return 2;
    }
    const int kinds = int(parser.isSet(QStringLiteral("ssh"))) + int(parser.isSet(QStringLiteral("local"))) +
                      int(parser.isSet(QStringLiteral("slurm")));
    if (kinds != 1) {
        SubcommandParser::err()
            << "accelopt hosts add: give exactly one of --ssh HOST, --slurm HEAD or --local\n";
        return 2;
    }
    const bool slurm = parser.isSet(QStringLiteral("slurm"));
    for (const char *option : {"partition", "account", "time", "gres", "constraint", "nodes"})
        if (!slurm && parser.isSet(QLatin1String(option))) {
            SubcommandParser::err() << "accelopt hosts add: --" << option
                                    << " is for a SLURM host (--slurm HEAD)\n";
            return 2;
        }
    const QString head = parser.value(QStringLiteral("slurm"));
    QJsonObject o{{QStringLiteral("name"), parser.positionalArguments().first()},
                  {QStringLiteral("kind"), slurm                                 ? QStringLiteral("slurm")
                                           : parser.isSet(QStringLiteral("ssh")) ? QStringLiteral("ssh")
                                                                                 : QStringLiteral("local")},
                  {QStringLiteral("ssh_host"), slurm ? (head == QStringLiteral("local") ? QString() : head)
                                                     : parser.value(QStringLiteral("ssh"))},
                  {QStringLiteral("partition"), parser.value(QStringLiteral("partition"))},
                  {QStringLiteral("account"), parser.value(QStringLiteral("account"))},
                  {QStringLiteral("time_limit"), parser.value(QStringLiteral("time"))},
                  {QStringLiteral("gres"), parser.value(QStringLiteral("gres"))},
                  {QStringLiteral("constraint"), parser.value(QStringLiteral("constraint"))},
                  {QStringLiteral("user"), parser.value(QStringLiteral("user"))},
                  {QStringLiteral("identity_file"), parser.value(QStringLiteral("identity"))},
                  {QStringLiteral("python"), parser.value(QStringLiteral("python"))},
                  {QStringLiteral("venv"), parser.value(QStringLiteral("venv"))},
                  {QStringLiteral("backend"), parser.value(QStringLiteral("backend"))},
                  {QStringLiteral("target"), parser.value(QStringLiteral("target"))},
                  {QStringLiteral("deploy_root"), parser.value(QStringLiteral("deploy-root"))},
                  {QStringLiteral("known_hosts"), parser.value(QStringLiteral("known-hosts"))},
                  {QStringLiteral("ssh_config"), parser.value(QStringLiteral("ssh-config"))}};
    bool ok = true;
    const int slots = parser.value(QStringLiteral("slots")).toInt(&ok);
    o.insert(QStringLiteral("slots"), ok ? slots : -1);
    const int nodes = parser.value(QStringLiteral("nodes")).toInt(&ok);
    o.insert(QStringLiteral("nodes"), ok ? nodes : -1);
    const double weight = parser.value(QStringLiteral("weight")).toDouble(&ok);
    o.insert(QStringLiteral("weight"), ok ? weight : -1.0);
    if (parser.isSet(QStringLiteral("port"))) {
        const int port = parser.value(QStringLiteral("port")).toInt(&ok);
        if (!ok || port < 1 || port > 65535) {
            SubcommandParser::err()
                << "accelopt hosts add: --port must be a whole number from 1 to 65535, not '"
                << parser.value(QStringLiteral("port")) << "'\n";
            return 2;
        }
        o.insert(QStringLiteral("port"), port);
    }
    QJsonObject env;
    for (const QString &pair : parser.values(QStringLiteral("env"))) {
        const qsizetype eq = pair.indexOf(u'=');
        if (eq <= 0) {
            SubcommandParser::err() << "accelopt hosts add: --env takes KEY=VALUE, not '" << pair << "'\n";
            return 2;
        }
        env.insert(pair.left(eq), pair.mid(eq + 1));
    }
    o.insert(QStringLiteral("env"), env);
    HostConfig config;
    QString error;
    HostRegistry registry;
    if (!HostConfig::fromJson(o, config, error)) {
        SubcommandParser::err() << "accelopt hosts add: " << error << "\n";
        return 2;
    }
    if (config.name == QStringLiteral("local")) { // a name that cannot be, like any other invalid name
        SubcommandParser::err() << "accelopt hosts add: 'local' is the built-in host; choose another name\n";
        return 2;
    }
    if (!registry.load(error) || !registry.add(config, error) || !registry.save(error)) {
        SubcommandParser::err() << "accelopt hosts add: " << error << "\n";
        return 1;
    }
    QTextStream(stdout) << "added " << config.name << " (" << address(config) << ") to " << registry.path()
                        << "\nCheck it with: accelopt hosts check " << config.name << "\n";
    return 0;
}

int HostsCommand::remove(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("The host to forget."));
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("remove"), arguments, status))
        return status;
    if (parser.positionalArguments().size() != 1) {
        SubcommandParser::err() << "accelopt hosts remove: give one host name\n";
        return 2;
    }
    HostRegistry registry;
    QString error;
    if (!registry.load(error)) {
        SubcommandParser::err() << "accelopt hosts remove: " << error << "\n";
        return 1;
    }
    // An unknown name is a usage error, as for `accelopt hosts check` ('local' is known, and cannot go).
    if (HostConfig known; !registry.find(parser.positionalArguments().first(), known)) {
        SubcommandParser::err() << "accelopt hosts remove: no host named '"
                                << parser.positionalArguments().first() << "'; see 'accelopt hosts list'\n";
        return 2;
    }
    if (!registry.remove(parser.positionalArguments().first(), error) || !registry.save(error)) {
        SubcommandParser::err() << "accelopt hosts remove: " << error << "\n";
        return 1;
    }
    QTextStream(stdout) << "removed " << parser.positionalArguments().first() << "\n";
    return 0;
}

int HostsCommand::check(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.addPositionalArgument(QStringLiteral("name"), QStringLiteral("The host to check."));
    parser.addOptions(
        {{QStringLiteral("accept-fingerprint"),
          QStringLiteral("Accept this SHA256 host key fingerprint if the host is not yet known."),
          QStringLiteral("SHA256:...")},
         {QStringLiteral("json"), QStringLiteral("Print the result as JSON.")}});
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("check"), arguments, status))
        return status;
    if (parser.positionalArguments().size() != 1) {
        SubcommandParser::err() << "accelopt hosts check: give one host name\n";
        return 2;
    }
    HostRegistry registry;
    QString error;
    HostConfig config;
    if (!registry.load(error)) {
        SubcommandParser::err() << "accelopt hosts check: " << error << "\n";
        return 1;
    }
    if (!registry.find(parser.positionalArguments().first(), config)) {
        SubcommandParser::err() << "accelopt hosts check: no host named '"
                                << parser.positionalArguments().first() << "'\n";
        return 2;
    }
    auto prompter = std::make_shared<CliSshPrompter>();
    prompter->setAcceptedFingerprints(parser.values(QStringLiteral("accept-fingerprint")));
    HostProbe probe;
    HostProbe::Result result;
    QEventLoop loop;
    QObject::connect(&probe, &HostProbe::finished, &loop, [&](const HostProbe::Result &r) {
        result = r;
        loop.quit();
    });
    probe.start(config, prompter);
    loop.exec();

    QTextStream out(stdout);
    if (parser.isSet(QStringLiteral("json"))) {
        out << QJsonDocument(result.toJson(config.name)).toJson(QJsonDocument::Compact) << "\n";
    } else if (result.ok) {
        const QJsonObject &hello = result.hello;
        out << config.name << ": ok in " << result.seconds << " s\n";
        if (!result.fingerprint.isEmpty())
            out << "  host key     " << result.fingerprint << "\n"
                << "  runner in    " << result.remoteDir << " (" << result.uploadedFiles
                << " files uploaded)\n";
        out << "  runner       " << hello.value(QStringLiteral("runner_version")).toString() << ", protocol "
            << hello.value(QStringLiteral("protocol_version")).toInt() << "\n"
            << "  python       " << hello.value(QStringLiteral("python")).toString() << ", numpy "
            << hello.value(QStringLiteral("numpy")).toString() << "\n"
            << "  backends     "
            << hello.value(QStringLiteral("backends")).toObject().keys().join(QStringLiteral(", ")) << "\n";
        if (const QString slurm = result.slurmLine(); !slurm.isEmpty())
            out << "  slurm        " << slurm << "\n";
        for (const QString &line : result.nkiLines()) {
            // "sim: ...", "neuron: ..." in the column layout above; notes indented under them.
            const qsizetype colon = line.indexOf(u':');
            if (line.startsWith(u' '))
                out << "               " << line.trimmed() << "\n";
            else
                out << "  " << line.left(colon).leftJustified(13) << line.mid(colon + 2) << "\n";
        }
    }
    if (!result.ok)
        SubcommandParser::err() << "accelopt hosts check: " << config.name << ": " << result.error << "\n";
    return result.ok ? 0 : 1;
}
