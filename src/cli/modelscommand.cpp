#include "modelscommand.h"

#include "llm/apikeystore.h"
#include "llm/chatclient.h"
#include "llm/costledger.h"
#include "llm/endpointpresets.h"
#include "llm/llmconfig.h"

#include "console.h"

#include <QCommandLineParser>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>

namespace {

const QCommandLineOption
    configOption(QStringLiteral("config"),
                 QStringLiteral("The LLM settings file (default: $ACCELOPT_LLM_CONFIG or the "
                                "user's AccelOpt/llm.json)."),
                 QStringLiteral("file"));

bool parseOrFail(QCommandLineParser &parser, const QString &command, const QStringList &arguments,
                 int &status)
{
    parser.addHelpOption();
    parser.addOption(configOption);
    if (!parser.parse(QStringList{QStringLiteral("accelopt models ") + command} + arguments)) {
        Console::err() << "accelopt models " << command << ": " << parser.errorText() << "\n";
        status = 2;
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        Console::out() << parser.helpText();
        status = 0;
        return false;
    }
    return true;
}

// `status` is the exit status when there is no config: 2 for a --config file that is not there, 1 else.
std::optional<LlmConfig> loadConfig(const QCommandLineParser &parser, QString *path, int &status)
{
    *path = parser.isSet(configOption) ? parser.value(configOption) : LlmConfig::defaultPath();
    // A missing default file means no endpoints yet; a file named on the command line must be there.
    if (parser.isSet(configOption) && !QFileInfo::exists(*path)) {
        Console::err() << "accelopt models: " << *path
                       << " does not exist; check the path given to --config\n";
        status = 2;
        return std::nullopt;
    }
    QString error;
    auto config = LlmConfig::load(*path, &error);
    if (!config)
        Console::err() << "accelopt models: " << error << "\n";
    status = 1;
    return config;
}

QString keyDescription(const Endpoint &e)
{
    switch (e.keySource) {
    case Endpoint::KeySource::None:
        return QStringLiteral("no key");
    case Endpoint::KeySource::Environment:
        return QStringLiteral("key from $%1").arg(e.keyEnvVar);
    case Endpoint::KeySource::Keychain:
        return e.keyEnvVar.isEmpty() ? QStringLiteral("key in keychain")
                                     : QStringLiteral("key in keychain, else $%1").arg(e.keyEnvVar);
    }
    return {};
}
} // namespace

int ModelsCommand::run(const QStringList &arguments)
{
    const QString sub = arguments.value(0);
    if (sub == QStringLiteral("list"))
        return list(arguments.mid(1));
    if (sub == QStringLiteral("presets"))
        return presets(arguments.mid(1));
    if (sub == QStringLiteral("test"))
        return test(arguments.mid(1));
    if (sub.isEmpty() || sub == QStringLiteral("--help") || sub == QStringLiteral("-h")) {
        // Asked for, the usage is the output; without a subcommand it is a usage error's text.
        (sub.isEmpty() ? Console::err() : Console::out())
            << "Usage: accelopt models list|presets|test ...\n"
               "  list [--config FILE]                      endpoints, role assignments and prices\n"
               "  presets                                   the server presets the Models dialog offers\n"
               "  test [--endpoint NAME] [--config FILE] [--attempts N]\n"
               "                                            a real tiny call to each (or one) endpoint\n"
               "Settings are edited in the workbench (Tools > Models…) and kept in "
            << LlmConfig::defaultPath() << "\n";
        return sub.isEmpty() ? 2 : 0;
    }
    Console::err() << "accelopt models: unknown subcommand '" << sub << "' (list, presets, test)\n";
    return 2;
}

int ModelsCommand::list(const QStringList &arguments)
{
    QCommandLineParser parser;
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("list"), arguments, status))
        return status;
    QString path;
    const auto config = loadConfig(parser, &path, status);
    if (!config)
        return status;
    Console::out() << "Settings: " << path << "\n";
    if (config->endpoints.isEmpty())
        Console::out() << "No endpoints yet: add one in the workbench (Tools > Models…) or edit the file.\n";
    for (const Endpoint &e : config->endpoints)
        Console::out() << QStringLiteral("  %1  %2  model %3, %4, %5 at once, timeout %6 s\n")
                              .arg(e.name, e.baseUrl, e.model, keyDescription(e))
                              .arg(e.concurrency)
                              .arg(e.timeoutMs / 1000.0);
    Console::out() << "Roles:\n";
    for (AgentRole role : AgentRoles::all()) {
        const auto members = config->roster.members(role);
        Console::out() << QStringLiteral("  %1 %2\n")
                              .arg(AgentRoles::name(role).leftJustified(11),
                                   members.isEmpty() ? QStringLiteral("(unassigned)")
                                                     : ModelRoster::format(members));
    }
    Console::out() << "Prices (USD per million tokens, input / output):\n";
    for (const QString &model : config->prices.models()) {
        const auto p = config->prices.price(model);
        Console::out()
            << QStringLiteral("  %1 %2 / %3\n").arg(model).arg(p->inputPerMillion).arg(p->outputPerMillion);
    }
    if (config->prices.models().isEmpty())
        Console::out() << "  (none: costs will be reported as unknown)\n";
    const QStringList problems = config->problems();
    for (const QString &p : problems)
        Console::out() << "Problem: " << p << "\n";
    return 0;
}

int ModelsCommand::presets(const QStringList &arguments)
{
    QCommandLineParser parser;
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("presets"), arguments, status))
        return status;
    if (!parser.positionalArguments().isEmpty()) {
        Console::err() << "accelopt models presets: unexpected argument '"
                       << parser.positionalArguments().first() << "'\n";
        return 2;
    }
    for (const EndpointPreset &p : EndpointPresets::all())
        Console::out() << QStringLiteral("%1  %2\n    %3\n    %4\n")
                              .arg(p.id.leftJustified(10), p.label, p.endpoint.baseUrl, p.note);
    return 0;
}

int ModelsCommand::test(const QStringList &arguments)
{
    QCommandLineParser parser;
    const QCommandLineOption endpointOption(
        QStringLiteral("endpoint"), QStringLiteral("Test only this endpoint."), QStringLiteral("name"));
    const QCommandLineOption attemptsOption(
        QStringLiteral("attempts"), QStringLiteral("Attempts per endpoint, retries included (default 2)."),
        QStringLiteral("n"), QStringLiteral("2"));
    parser.addOption(endpointOption);
    parser.addOption(attemptsOption);
    int status = 0;
    if (!parseOrFail(parser, QStringLiteral("test"), arguments, status))
        return status;
    bool ok = false; // a usage error is said before the settings are read
    const int attempts = parser.value(attemptsOption).toInt(&ok);
    if (!ok || attempts < 1) {
        Console::err() << "accelopt models test: --attempts wants a positive number\n";
        return 2;
    }
    QString path;
    const auto config = loadConfig(parser, &path, status);
    if (!config)
        return status;
    QList<Endpoint> targets = config->endpoints;
    if (parser.isSet(endpointOption)) {
        const Endpoint *e = config->endpoint(parser.value(endpointOption));
        if (!e) {
            Console::err() << "accelopt models test: no endpoint named '" << parser.value(endpointOption)
                           << "' in " << path
                           << " (have: " << config->endpointNames().join(QStringLiteral(", ")) << ")\n";
            return 2;
        }
        targets = {*e};
    }
    if (targets.isEmpty()) {
        Console::err() << "accelopt models test: no endpoints configured in " << path << "\n";
        return 1;
    }
    int failures = 0;
    for (const Endpoint &e : targets)
        failures += testOne(e, *config, attempts);
    return failures == 0 ? 0 : 1;
}

int ModelsCommand::testOne(const Endpoint &endpoint, const LlmConfig &config, int attempts)
{
    QEventLoop loop;
    ApiKeyStore keys;
    std::optional<ApiKeyStore::Lookup> key;
    keys.lookup(endpoint, [&](const ApiKeyStore::Lookup &l) {
        key = l;
        loop.quit();
    });
    if (!key)
        loop.exec();
    if (!key->ok) {
        Console::out() << endpoint.name << ": FAILED: " << key->message << "\n";
        return 1;
    }
    if (!key->message.isEmpty())
        Console::err() << endpoint.name << ": " << key->message << "\n";

    ChatClient client(endpoint);
    client.setApiKey(key->key);
    RetryPolicy policy = config.retry;
    policy.maxAttempts = attempts;
    client.setRetryPolicy(policy);
    CostLedger ledger;
    ledger.setPrices(config.prices);
    client.setLedger(&ledger);
    std::optional<ChatReply> reply;
    QObject::connect(&client, &ChatClient::finished, &loop, [&](quint64, const ChatReply &r) {
        reply = r;
        loop.quit();
    });
    ChatRequest request;
    request.role = AgentRole::Planner;
    request.tag = QStringLiteral("models test");
    request.messages = {
        ChatMessage::system(QStringLiteral("You are a connectivity check. Answer in one short line.")),
        ChatMessage::user(QStringLiteral("Reply with the word: ready"))};
    client.send(request);
    if (!reply)
        loop.exec();
    if (!reply->ok()) {
        Console::out() << endpoint.name << ": FAILED after " << reply->latencyMs
                       << " ms: " << reply->errorText << "\n";
        return 1;
    }
    const QString firstLine = reply->content.trimmed().section(u'\n', 0, 0).left(200);
    Console::out() << QStringLiteral(
                          "%1: ok in %2 ms (%3 attempt%4), model %5, tokens %6, cost %7\n  reply: %8\n")
                          .arg(endpoint.name)
                          .arg(reply->latencyMs)
                          .arg(reply->attempts)
                          .arg(reply->attempts == 1 ? "" : "s")
                          .arg(endpoint.model,
                               reply->usage ? QStringLiteral("%1 in / %2 out")
                                                  .arg(reply->usage->inputTokens)
                                                  .arg(reply->usage->outputTokens)
                                            : QStringLiteral("unknown (no usage in the reply)"),
                               reply->costUsd ? QStringLiteral("$%1").arg(*reply->costUsd, 0, 'f', 6)
                                              : QStringLiteral("unknown"),
                               firstLine.isEmpty() ? QStringLiteral("(empty)") : firstLine);
    return 0;
}
