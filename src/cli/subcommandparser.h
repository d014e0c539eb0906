#pragma once

#include <QString>
#include <QStringList>

class QCommandLineParser;
class QTextStream;

// What every `accelopt COMMAND SUB` shares: --help, parsing with errors that name the command, and stderr.
class SubcommandParser
{
public:
    // Adds --help and parses; false when the caller should return `status` (2 on a usage error, 0 after
    // help).
    static bool parse(QCommandLineParser &parser, const QString &label, const QStringList &arguments,
                      int &status);
    static QTextStream &err();
};
