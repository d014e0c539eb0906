#include "resumecommand.h"

#include "searchconsole.h"
#include "searchoptions.h"
#include "store/sessionstore.h"

#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
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
    // The options alone, over the defaults: a bad one is a usage error, said before the session is looked up.
    // Every check is of one field, so an option the defaults accept the session's settings accept too.
    {
        SearchConfig defaults;
        bool changed = false;
        if (!SearchOptions::apply(parser, defaults, changed, error)) {
            err << "accelopt resume: " << error << "\n";
            return 2;
        }
    }
    // Resuming must not create a workspace as a side effect.
    if (const QString path = SessionStore::defaultPath(); !QFileInfo::exists(path)) {
        err << "accelopt resume: no workspace database at " << QDir::toNativeSeparators(path)
            << ", so there is no session '" << parser.positionalArguments().first()
            << "' to resume; see 'accelopt sessions list'\n";
        return 1;
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
