#pragma once

#include <QJsonObject>
#include <QStringList>

#include <initializer_list>

class QCommandLineParser;

// A tool's JSON arguments turned into the command line of the CLI command it twins, so the tool is parsed
// and checked by the very code that checks `accelopt bench ...` (same options, same messages) rather than by
// a second set of rules that would drift from it.
class McpArgs
{
public:
    enum class Kind
    {
        Positional, // a string (or an array of them) as positional arguments
        Value,      // --option VALUE (numbers written as JSON would)
        Flag,       // --option when true
        List,       // an array joined by commas: --option a,b,c
    };
    struct Option
    {
        const char *property;
        const char *option; // the CLI option's name, without dashes; ignored for Positional
        Kind kind;
    };

    static QStringList argv(const QJsonObject &arguments, std::initializer_list<Option> options);
    // Parses `argv` as the command `label` would; false with `error` in the parser's words.
    static bool parse(QCommandLineParser &parser, const QString &label, const QStringList &argv, QString &error);
    static QString text(const QJsonValue &value);
};
