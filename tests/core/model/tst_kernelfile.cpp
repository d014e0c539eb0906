#include "model/kernelfile.h"

#include <QFile>
#include <QLocalServer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

class TestKernelFile : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    QString writeBytes(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write fixture %s", qPrintable(path));
        return path;
    }

private Q_SLOTS:
    void roundTripKeepsTextExactly()
    {
        const QString text =
            QStringLiteral("import neuronxcc.nki.language as nl\n# ünïcødé → ok\n\tx = 1\r\n");
        const QString path = m_dir.filePath(QStringLiteral("k.py"));
        const auto written = KernelFile::write(path, text);
        QVERIFY2(written.ok, qPrintable(written.error));
        const auto read = KernelFile::read(path);
        QVERIFY2(read.ok, qPrintable(read.error));
        QCOMPARE(read.text, text);
    }

    void byteOrderMarkIsDropped()
    {
        const auto read = KernelFile::read(writeBytes(QStringLiteral("bom.py"), "\xEF\xBB\xBFx = 1\n"));
        QVERIFY(read.ok);
        QCOMPARE(read.text, QStringLiteral("x = 1\n"));
    }

    void missingFileSaysSo()
    {
        const auto read = KernelFile::read(m_dir.filePath(QStringLiteral("nope.py")));
        QVERIFY(!read.ok);
        QVERIFY(read.error.contains(QStringLiteral("does not exist")));
        QVERIFY(read.error.contains(QStringLiteral("nope.py")));
    }

    void emptyPathSaysSo()
    {
        QVERIFY(KernelFile::read(QString()).error.contains(QStringLiteral("No file name")));
        QVERIFY(KernelFile::write(QStringLiteral("  "), QStringLiteral("x"))
                    .error.contains(QStringLiteral("No file name")));
    }

    void folderIsRefused()
    {
        const auto read = KernelFile::read(m_dir.path());
        QVERIFY(!read.ok);
        QVERIFY(read.error.contains(QStringLiteral("is a folder")));
    }

    void socketIsRefused()
    {
        QLocalServer server;
        const QString socketPath = m_dir.filePath(QStringLiteral("sock.py"));
        QVERIFY(server.listen(socketPath));
        const auto read = KernelFile::read(socketPath);
        QVERIFY(!read.ok);
        QVERIFY2(read.error.contains(QStringLiteral("not a regular file")), qPrintable(read.error));
    }

    void permissionDeniedSaysWhy()
    {
        if (::geteuid() == 0)
            QSKIP("root reads files whatever their mode, so an unreadable file cannot be made here");
        const QString path = writeBytes(QStringLiteral("locked.py"), "x = 1\n");
        QVERIFY(QFile::setPermissions(path, {}));
        const auto read = KernelFile::read(path);
        QVERIFY(!read.ok);
        QVERIFY(read.error.contains(QStringLiteral("Cannot read")));
    }

    void binaryFileIsRefused()
    {
        const auto read =
            KernelFile::read(writeBytes(QStringLiteral("blob.py"), QByteArray("ELF\x00\x01\x02", 6)));
        QVERIFY(!read.ok);
        QVERIFY2(read.error.contains(QStringLiteral("binary")), qPrintable(read.error));
        QVERIFY(read.error.contains(QStringLiteral("offset 3")));
    }

    void nonUtf8NamesTheLine()
    {
        const auto read =
            KernelFile::read(writeBytes(QStringLiteral("latin1.py"), "a = 1\nb = 2\n# caf\xE9\n"));
        QVERIFY(!read.ok);
        QVERIFY2(read.error.contains(QStringLiteral("not valid UTF-8")), qPrintable(read.error));
        QVERIFY2(read.error.contains(QStringLiteral("line 3")), qPrintable(read.error));
    }

    void hugeFileIsRefused()
    {
        const auto read = KernelFile::read(
            writeBytes(QStringLiteral("huge.py"), QByteArray(KernelFile::maxBytes + 10, 'x')));
        QVERIFY(!read.ok);
        QVERIFY2(read.error.contains(QStringLiteral("limit")), qPrintable(read.error));
    }

    void pipeIsRefusedWithoutWaiting()
    {
        // A FIFO as the kernel path once blocked forever, waiting for a writer.
        const QString fifo = m_dir.filePath(QStringLiteral("kernel.py"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        const auto read = KernelFile::read(fifo);
        QVERIFY(!read.ok);
        QVERIFY2(read.error.contains(QStringLiteral("not a regular file")), qPrintable(read.error));
        const auto device = KernelFile::read(QStringLiteral("/dev/zero"));
        QVERIFY(!device.ok);
        QVERIFY2(device.error.contains(QStringLiteral("not a regular file")), qPrintable(device.error));
    }

    void utf8Validator_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<qsizetype>("expected");
        QTest::newRow("ascii") << QByteArray("abc") << qsizetype(-1);
        QTest::newRow("two-byte") << QByteArray("\xC3\xA9") << qsizetype(-1);
        QTest::newRow("four-byte") << QByteArray("x\xF0\x9F\x98\x80") << qsizetype(-1);
        QTest::newRow("lone continuation") << QByteArray("ab\x80") << qsizetype(2);
        QTest::newRow("truncated") << QByteArray("ab\xE2\x82") << qsizetype(2);
        QTest::newRow("overlong slash") << QByteArray("\xC0\xAF") << qsizetype(0);
        QTest::newRow("surrogate") << QByteArray("\xED\xA0\x80") << qsizetype(0);
        QTest::newRow("past max") << QByteArray("\xF4\x90\x80\x80") << qsizetype(0);
        QTest::newRow("invalid lead") << QByteArray("\xFF") << qsizetype(0);
    }

    void utf8Validator()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(qsizetype, expected);
        QCOMPARE(KernelFile::firstInvalidUtf8(bytes), expected);
    }

    void writeIntoMissingFolderFailsClearly()
    {
        const auto written =
            KernelFile::write(m_dir.filePath(QStringLiteral("no/such/dir/k.py")), QStringLiteral("x"));
        QVERIFY(!written.ok);
        QVERIFY2(written.error.contains(QStringLiteral("Cannot write")), qPrintable(written.error));
    }
};

QTEST_GUILESS_MAIN(TestKernelFile)
#include "tst_kernelfile.moc"
