#include "model/kernelfile.h"

#include "common/logcategories.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

namespace {
QString mib(qint64 bytes)
{
    return QString::number(double(bytes) / (1024.0 * 1024.0), 'f', 1);
}
} // namespace

qsizetype KernelFile::firstInvalidUtf8(const QByteArray &bytes)
{
    const auto *p = reinterpret_cast<const unsigned char *>(bytes.constData());
    const qsizetype n = bytes.size();
    qsizetype i = 0;
    while (i < n) {
        const unsigned char c = p[i];
        int extra = 0;
        unsigned int minCode = 0;
        unsigned int code = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1;
            minCode = 0x80;
            code = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2;
            minCode = 0x800;
            code = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3;
            minCode = 0x10000;
            code = c & 0x07;
        } else {
            return i;
        }
        for (int k = 1; k <= extra; ++k) {
            if (i + k >= n || (p[i + k] & 0xC0) != 0x80)
                return i;
            code = (code << 6) | (p[i + k] & 0x3F);
        }
        // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8 either.
        if (code < minCode || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF)
            return i;
        i += extra + 1;
    }
    return -1;
}

KernelFile::ReadResult KernelFile::read(const QString &path)
{
    ReadResult result;
    if (path.trimmed().isEmpty()) {
        result.error = QStringLiteral("No file name given. Choose a kernel file (.py) to open.");
        return result;
    }
    const QFileInfo info(path);
    if (!info.exists()) {
        result.error = QStringLiteral("%1 does not exist. Check the path.").arg(path);
        return result;
    }
    if (info.isDir()) {
        result.error =
            QStringLiteral("%1 is a folder, not a kernel file. Choose a .py file inside it.").arg(path);
        return result;
    }
    if (!info.isFile()) {
        // Reading a FIFO blocks until a writer comes, which may be never; a device may never end.
        result.error = QStringLiteral("%1 is not a regular file (a pipe, socket or device). Choose the kernel's "
                                      ".py file.")
                           .arg(path);
        return result;
    }
    if (info.size() > maxBytes) {
        result.error = QStringLiteral("%1 is %2 MiB, over the %3 MiB limit for a kernel file. "
                                      "A kernel source is a few KiB; check that this is the right file.")
                           .arg(path, mib(info.size()), mib(maxBytes));
        return result;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        result.error =
            QStringLiteral("Cannot read %1: %2. Check the file's permissions.").arg(path, file.errorString());
        return result;
    }
    // Read one byte past the limit: the file may have grown since stat().
    QByteArray bytes = file.read(maxBytes + 1);
    if (file.error() != QFileDevice::NoError) {
        result.error = QStringLiteral("Reading %1 failed: %2.").arg(path, file.errorString());
        return result;
    }
    if (bytes.size() > maxBytes) {
        result.error =
            QStringLiteral("%1 is over the %2 MiB limit for a kernel file.").arg(path, mib(maxBytes));
        return result;
    }
    if (const qsizetype nul = bytes.indexOf('\0'); nul >= 0) {
        result.error =
            QStringLiteral("%1 looks like a binary file (a NUL byte at offset %2), not Python source. "
                           "Open the kernel's .py file instead.")
                .arg(path)
                .arg(nul);
        return result;
    }
    if (bytes.startsWith("\xEF\xBB\xBF"))
        bytes.remove(0, 3);
    if (const qsizetype bad = firstInvalidUtf8(bytes); bad >= 0) {
        const qsizetype line = bytes.left(bad).count('\n') + 1;
        result.error =
            QStringLiteral("%1 is not valid UTF-8 (line %2, byte offset %3). "
                           "Kernels are Python source in UTF-8: convert the file, e.g. with iconv.")
                .arg(path)
                .arg(line)
                .arg(bad);
        return result;
    }
    result.text = QString::fromUtf8(bytes);
    result.ok = true;
    qCDebug(lcModel) << "read" << path << bytes.size() << "bytes";
    return result;
}

KernelFile::WriteResult KernelFile::write(const QString &path, const QString &text)
{
    WriteResult result;
    if (path.trimmed().isEmpty()) {
        result.error = QStringLiteral("No file name given. Choose where to save the kernel.");
        return result;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        result.error = QStringLiteral("Cannot write %1: %2. Check that the folder exists and is writable.")
                           .arg(path, file.errorString());
        return result;
    }
    const QByteArray bytes = text.toUtf8();
    if (file.write(bytes) != bytes.size() || !file.commit()) {
        result.error = QStringLiteral("Saving %1 failed: %2. The previous version on disk is unchanged.")
                           .arg(path, file.errorString());
        return result;
    }
    result.ok = true;
    qCInfo(lcModel) << "saved" << path << bytes.size() << "bytes";
    return result;
}
