#include "clilogging.h"
#include "commandregistry.h"
#include "common/buildinfo.h"
#include "common/datapaths.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QLoggingCategory>
#include <QTextStream>

#include <algorithm>
#include <cstdio>

namespace {
QString commandSummary(const std::vector<std::unique_ptr<Command>> &commands)
{
    QString text = QStringLiteral("Commands (accelopt COMMAND --help for each):\n");
    qsizetype width = 0;
    for (const auto &command : commands)
        width = std::max(width, command->name().size());
    for (const auto &command : commands)
        text += QStringLiteral("  %1  %2\n").arg(command->name().leftJustified(width), command->summary());
    if (commands.empty())
        text += QStringLiteral("  (none yet: this build offers --version and --help)\n");
    return text;
}

int usageError(const QString &message)
{
    QTextStream err(stderr);
    err << "accelopt: " << message << "\nRun 'accelopt --help' for usage.\n";
    return 2;
}
} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("accelopt"));
    QCoreApplication::setOrganizationName(QStringLiteral("AccelOpt"));
    QCoreApplication::setApplicationVersion(BuildInfo::appVersion());
    // Headless output is for people and scripts: only warnings and errors by default. QT_LOGGING_RULES or
    // ACCELOPT_VERBOSE=1 bring the rest back.
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES") && qEnvironmentVariableIsEmpty("ACCELOPT_VERBOSE"))
        QLoggingCategory::setFilterRules(QStringLiteral("accelopt.*.debug=false\naccelopt.*.info=false"));

    const auto commands = CommandRegistry::all();
    // The command's own options are its business: hand everything after the command name to it untouched.
    const QStringList all = app.arguments();
    for (qsizetype i = 1; i < all.size(); ++i) {
        if (all.at(i).startsWith(u'-'))
            continue;
        for (const auto &command : commands)
            if (command->name() == all.at(i))
                return command->run(all.mid(i + 1));
        break;
    }

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("AccelOpt Workbench, headless: optimize AWS Trainium NKI kernels.\n\n%1")
            .arg(commandSummary(commands)));
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption(
        QStringList{QStringLiteral("V"), QStringLiteral("version")},
        QStringLiteral("Print the version of accelopt and its libraries."));
    parser.addOption(versionOption);
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("The command to run."));

    if (!parser.parse(app.arguments()))
        return usageError(parser.errorText());
    if (parser.isSet(helpOption)) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (parser.isSet(versionOption)) {
        QTextStream out(stdout);
        out << "accelopt " << BuildInfo::appVersion() << "\n";
        for (const QString &line : BuildInfo::coreComponents().mid(1))
            out << "  " << line << "\n";
        // Where the tasks, runner and prompts are read from: the first thing to know when an installed copy
        // and a build tree disagree.
        out << "  data " << DataPaths::dataRoot() << "\n";
        return 0;
    }
    const QStringList args = parser.positionalArguments();
    if (args.isEmpty()) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    qCDebug(lcCli) << "unknown command" << args.first();
    return usageError(QStringLiteral("unknown command '%1'.").arg(args.first()));
}
