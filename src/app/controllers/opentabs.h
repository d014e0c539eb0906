#pragma once

#include <QStringList>

class EditorTabs;

// The kernel files open at quit, reopened at the next start (QSettings: AppSettings::openFiles and
// "session/currentFile"), as Kate and Qt Creator do. Untitled and read-only tabs (candidates, comparisons)
// are not files and are not kept; a file gone since is skipped without a word.
class OpenTabs
{
public:
    static void save(const EditorTabs *tabs);
    static QStringList files();
    static QString currentFile();
};
