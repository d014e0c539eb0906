#include "subcommandparser.h"

#include "console.h"

#include <QCommandLineParser>
#include <QTextStream>

QTextStream &SubcommandParser::err()
{
    return Console::err();
}

bool SubcommandParser::parse(QCommandLineParser &parser, const QString &label, const QStringList &arguments,
                             int &status)
{
    parser.addHelpOption();
    if (!parser.parse(QStringList{label} + arguments)) {
        err() << label << ": " << parser.errorText() << "\n";
        status = 2;
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        QTextStream(stdout) << parser.helpText();
        status = 0;
        return false;
    }
    return true;
}
