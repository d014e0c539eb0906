#pragma once

#include <QString>

class QsciScintilla;

// Light and dark looks for the whole window and the kernel editors. The choice persists in QSettings
// ("ui/theme") and is applied to editors as they are created.
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
};
