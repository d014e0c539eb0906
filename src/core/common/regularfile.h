#pragma once

#include <QString>

// Opening what is not a regular file can hang or never end: open() of a FIFO blocks until a writer comes,
// which may be never, and a device such as /dev/zero reads without end while QFile::size() says 0, so no size
// cap fires. A file read whole (settings, databases, exports) is checked with this before anything opens it.
class RegularFile
{
public:
    // True when `path` exists (symlinks followed) and is neither a regular file nor a folder: a FIFO, a
    // socket or a device. A missing path or a folder is false: callers say those in their own words.
    static bool isSpecial(const QString &path);
    // "PATH is not a regular file (a pipe, socket or device)", for the caller to go on with what to do.
    static QString refusal(const QString &path);
};
