#pragma once

#include <QString>

// Reading and writing kernel source files. Every failure comes back as a message that says what went wrong,
// where, and what to do, because kernels come from anywhere (drag and drop, recent files, generated folders).
class KernelFile
{
public:
    struct ReadResult
    {
        bool ok = false;
        QString text;
        QString error;
    };
    struct WriteResult
    {
        bool ok = false;
        QString error;
    };

    // Large enough for any hand-written or generated kernel, small enough that a mistaken pick of a data file
    // cannot freeze the editor. The runner's limit (limits.MAX_KERNEL_BYTES in nkibench/runner): one limit, so
    // a kernel that opens here is never refused there.
    static constexpr qint64 maxBytes = 4 * 1024 * 1024;

    static ReadResult read(const QString &path);
    // Atomic: the old file stays intact if anything fails on the way.
    static WriteResult write(const QString &path, const QString &text);

    // Offset of the first byte that is not valid UTF-8, or -1 when the whole buffer is valid.
    static qsizetype firstInvalidUtf8(const QByteArray &bytes);
};
