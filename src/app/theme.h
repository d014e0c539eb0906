#pragma once

#include <QColor>
#include <QString>

class QsciScintilla;

// Light and dark looks for the whole window and the kernel editors. The choice persists in QSettings
// (AppSettings::theme) and is applied to editors as they are created.
class Theme
{
public:
    enum class Kind
    {
        Light,
        Dark
    };

    static Kind current();
    static void setCurrent(Kind kind); // applies to the application palette and remembers it
    static Kind loadSaved();
    static void save(Kind kind);
    static void applyToEditor(QsciScintilla *editor, Kind kind);
    static QString name(Kind kind);
    static Kind fromName(const QString &name);

    // What a status word or mark means, coloured the same everywhere (host states, candidates, checks,
    // problems in dialogs), in a tone that reads on the current theme's background.
    enum class Status
    {
        Good,    // ready, correct, passed, connected
        Bad,     // failed, incorrect, a problem to fix
        Warning, // connecting, worth a look
        Busy,    // evaluating, in use
        Idle     // offline, not connected
    };
    static QColor statusColor(Status status);
    // `html` (already escaped) in the status's colour, for rich-text labels.
    static QString statusHtml(Status status, const QString &html);
};
