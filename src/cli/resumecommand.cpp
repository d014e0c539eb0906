#include "resumecommand.h"

#include "searchconsole.h"
#include "searchoptions.h"
#include "store/sessionstore.h"

#include <QCommandLineParser>
#include <QTextStream>

int ResumeCommand::run(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        summary() + QStringLiteral("\nSearch options given here replace the session's (e.g. -T "
                                   "20 to run more iterations); the others stay as they were."));
    parser.addHelpOption();
    parser.addPositionalArgument(
        QStringLiteral("session"),
        QStringLiteral("The session id, or its first characters (see 'accelopt sessions "
                       "list')."));
    SearchConsole::addOptions(parser);
    SearchOptions::add(parser);
    QTextStream err(stderr);
    if (!parser.parse(QStringList{QStringLiteral("accelopt resume")} + arguments)) {
        err << "accelopt resume: " << parser.errorText() << "\n";
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        return 0;
    }
    if (parser.positionalArguments().size() != 1) {
        err << "accelopt resume: give exactly one session id, e.g. accelopt resume 3f2a1b2c\n";
        return 2;
    }
    QString error;
    SearchConsole::Options options;
    if (!SearchConsole::readOptions(parser, options, error)) {
        err << "accelopt resume: " << error << "\n";
        return 2;
    }
    std::optional<SearchConfig> config;
    // The session's own settings are the base the options change; read them first.
    {
        SessionStore store;
        if (!store.open()) {
            err << "accelopt resume: cannot open the workspace database: " << store.lastError() << "\n";
            return 1;
        }
        const auto session = store.findSession(parser.positionalArguments().first());
        if (!session) {
            err << "accelopt resume: " << store.lastError() << "\n";
            return 1;
        }
        std::optional<SearchConfig> base = SearchConfig::fromJson(session->config, &error);
        if (!base) {
            err << "accelopt resume: session " << session->id << " has unreadable settings: " << error
                << "\n";
            return 1;
        }
        bool changed = false;
        if (!SearchOptions::apply(parser, *base, changed, error)) {
            err << "accelopt resume: " << error << "\n";
            return 2;
        }
        if (changed)
            config = base;
    }
    SearchConsole run(options);
    return run.resume(parser.positionalArguments().first(), config);
}
