#include "clilogging.h"
#include "common/buildinfo.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QTextStream>

#include <cstdio>

namespace {
// Commands grow with the issues; each one lands here with its own room in src/cli.
const char *const commandSummary = "Commands:\n"
                                   "  (none yet: this build offers --version and --help)\n";

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

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("AccelOpt Workbench, headless: optimize AWS Trainium NKI kernels.\n\n%1")
            .arg(QString::fromLatin1(commandSummary)));
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
