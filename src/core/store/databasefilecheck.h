#pragma once

#include <QString>

// Looks at an existing file's bytes before SQLite gets it. SQLite itself happily opens a text file or a
// truncated database and only fails later, sometimes after it has written a journal or a WAL next to it; we
// want to refuse such a file without touching it, so the header is checked by hand first
// (sqlite.org/fileformat.html §1.3: the magic string, the page size and the page count).
class DatabaseFileCheck
{
public:
    // False with a reason ("it is not an SQLite database (...)", "it is truncated (...)") when the file
    // cannot be a healthy SQLite database. An empty file passes: SQLite treats it as a new, empty database.
    static bool looksHealthy(const QString &path, QString &problem);
    // Whether the header marks the file as in WAL mode (read and write versions 2, fileformat.html §1.3.3).
    static bool isWalFile(const QString &path);
};
