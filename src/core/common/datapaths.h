#pragma once

#include <QString>

// Where the shipped data (nkibench/, prompts/, rules/) lives. Searched in order: the ACCELOPT_DATA_DIR
// environment variable, the install location relative to the executable, then the source tree the binary was
// built from, so a fresh build runs in place and an installed .deb finds its own copy.
class DataPaths
{
public:
    static QString dataRoot();
    static QString nkibenchDir();
    static QString tasksDir();
    static QString promptsDir();
    static QString rulesDir();
    // The recommendation rules over a profile (src/core/advice).
    static QString recommendationsFile();
    // A file of the user's own data (hosts, sessions, memory) in ~/.local/share/AccelOpt, one folder for the
    // workbench and the CLI alike, so each sees what the other did. (Qt's AppDataLocation is per program.)
    static QString userDataFile(const QString &name);
};
