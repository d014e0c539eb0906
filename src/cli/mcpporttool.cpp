// port: a classic NKI kernel ported to the current API and checked equal on nkisim, as `accelopt port`.
#include "mcptools.h"

#include "hostchoice.h"
#include "hosts/host.h"
#include "hosts/sshprompter.h"
#include "mcpargs.h"
#include "mcpcall.h"
#include "mcpschema.h"
#include "portcommand.h"

#include <QCommandLineParser>
#include <QJsonArray>

#include <memory>

namespace {

using Kind = McpArgs::Kind;

// The host and the port on it, destroyed port first.
class PortJob : public QObject
{
public:
    using QObject::QObject;
    std::unique_ptr<Host> host;
    std::unique_ptr<KernelPort> port;
    ~PortJob() override { port.reset(); }
};

void runPort(McpCall *call)
{
    QCommandLineParser parser;
    PortCommand::addOptions(parser);
    QString error;
    if (!McpArgs::parse(parser, QStringLiteral("accelopt port"),
                        McpArgs::argv(call->arguments(), {{"kernel", "", Kind::Positional},
                                                          {"task", "task", Kind::Value},
                                                          {"dataset", "dataset", Kind::Value},
                                                          {"out", "out", Kind::Value},
                                                          {"candidate", "candidate", Kind::Value},
                                                          {"no_model", "no-model", Kind::Flag},
                                                          {"size", "size", Kind::Value},
                                                          {"seeds", "seeds", Kind::List}}),
                        error))
        return call->fail(error);
    KernelPort::Request request;
    QString outPath;
    if (PortCommand::prepare(parser, request, outPath, error, false) != 0)
        return call->fail(error);
    // nkisim decides equality: the local host, whatever the kernel will run on later.
    auto *job = new PortJob(call);
    HostConfig config;
    job->host.reset(HostChoice::create(QStringLiteral("local"), 1, config, error, std::make_shared<SshPrompter>()));
    if (!job->host)
        return call->fail(error);
    job->port = std::make_unique<KernelPort>(job->host.get());
    QObject::connect(job->port.get(), &KernelPort::progress, call, [call](const QString &m) { call->progress(m); });
    QObject::connect(job->port.get(), &KernelPort::finished, call, [call, outPath](const KernelPort::Result &r) {
        QString written;
        QString writeError;
        if (r.ok && !outPath.isEmpty()) {
            if (PortCommand::write(outPath, r.kernel, writeError))
                written = outPath;
        }
        const QJsonObject o{{QStringLiteral("ported"), r.ok && writeError.isEmpty()},
                            {QStringLiteral("by"), r.by.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.by)},
                            {QStringLiteral("rules"), QJsonArray::fromStringList(r.rules)},
                            {QStringLiteral("kernel"), r.kernel.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.kernel)},
                            {QStringLiteral("equal"), r.equal},
                            {QStringLiteral("written"), written.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(written)},
                            {QStringLiteral("error"), r.ok && writeError.isEmpty() ? QJsonValue(QJsonValue::Null)
                                                      : QJsonValue(r.ok ? writeError : r.error)},
                            {QStringLiteral("unported"), QJsonArray::fromStringList(r.unported)}};
        if (!r.ok)
            return call->fail(QStringLiteral("not ported: %1").arg(r.error), o);
        if (!writeError.isEmpty())
            return call->fail(writeError, o);
        call->succeed(o, QStringLiteral("ported by %1%2; equal on nkisim (relative L2 difference %3 within %4)%5")
                             .arg(r.by,
                                  r.rules.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(r.rules.join(QStringLiteral(", "))))
                             .arg(r.equal.value(QStringLiteral("l2_rel_diff")).toDouble())
                             .arg(r.equal.value(QStringLiteral("rel_tol")).toDouble())
                             .arg(written.isEmpty() ? QString() : QStringLiteral("; wrote ") + written));
    });
    call->progress(QStringLiteral("porting on nkisim"));
    job->port->start(request);
}

} // namespace

McpTool McpTools::port()
{
    QJsonObject seeds = McpSchema::array(McpSchema::integer(QString(), 0, 2147483647),
                                         QStringLiteral("Seeds of the equality check (default: 2 fresh ones)."));
    seeds.insert(QStringLiteral("minItems"), 1);
    const QJsonObject input = McpSchema::object(
        {{"kernel", McpSchema::string(QStringLiteral("The classic NKI kernel file (neuronxcc.nki), absolute or relative to "
                                                     "the server's working folder."))},
         {"task", McpSchema::string(QStringLiteral("Task name or folder: its inputs and tolerance decide equality."))},
         {"dataset", McpSchema::string(QStringLiteral("A dataset in the original NKIBench layout."))},
         {"out", McpSchema::string(QStringLiteral("Also write the port to this new file (never over an existing one).")) },
         {"candidate", McpSchema::string(QStringLiteral("Check this current-API file as the port instead of porting."))},
         {"no_model", McpSchema::boolean(QStringLiteral("Rules only: never ask the executor model (llm.json)."))},
         {"size", McpSchema::oneOf(QStringLiteral("Parameter set of the check: small (default) or full."),
                                   {QStringLiteral("small"), QStringLiteral("full")})},
         {"seeds", seeds}},
        {QStringLiteral("kernel"), QStringLiteral("task")});
    const auto nullableString = [] { return McpSchema::nullable(McpSchema::string(QString())); };
    const QJsonObject output = McpSchema::object(
        {{"ported", McpSchema::boolean(QStringLiteral("A port equal to the original on nkisim exists."))},
         {"by", McpSchema::nullable(McpSchema::string(QStringLiteral("rules, model or candidate")))},
         {"rules", McpSchema::array(McpSchema::string(QString()), QStringLiteral("The port rules applied."))},
         {"kernel", McpSchema::withDescription(nullableString(), QStringLiteral("The ported source (also an unequal one, to look at)."))},
         {"equal", McpSchema::anyObject(QStringLiteral("nkisim's figures: l2_rel_diff, rel_tol, seeds."))},
         {"written", McpSchema::withDescription(nullableString(), QStringLiteral("The file written, when out was given."))},
         {"error", McpSchema::withDescription(nullableString(), QStringLiteral("Why there is no port."))},
         {"unported", McpSchema::array(McpSchema::string(QString()), QStringLiteral("line N: construct: why, where the rules stopped."))}},
        {QStringLiteral("ported"), QStringLiteral("kernel"), QStringLiteral("error")}, false);
    return {QStringLiteral("port"),
            QStringLiteral("Port a classic kernel to the current NKI API"),
            QStringLiteral("Port a classic NKI kernel (neuronxcc.nki) to the current API (nki, Neuron SDK 2.27+): the "
                           "port rules first, else the executor model from llm.json; kept only when nkisim finds it "
                           "numerically equal to the original. Returns the ported source. As `accelopt port`."),
            input,
            output,
            runPort};
}
