#include "hosts/hostregistry.h"
#include "memory/experiencestore.h"
#include "store/sessionstore.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

// hosts.json as a person edits it: malformed files are refused and left as they are, and what this build
// does not know survives a save.
class TestHostRegistry : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;

    // JSON written with single quotes, so the cases read as a person would type them.
    static QByteArray json(const char *text) { return QByteArray(text).replace('\'', '"'); }

    QString write(const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(QStringLiteral("hosts-%1.json").arg(QTest::currentDataTag()));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }

    static QByteArray read(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

private Q_SLOTS:
    void theWorkbenchAndTheCliShareTheUsersData()
    {
        // Qt names a program's data folder after the program; hosts, sessions and memory must not be split
        // between `accelopt` and `accelopt-workbench`.
        for (const char *name : {"ACCELOPT_HOSTS_FILE", "ACCELOPT_WORKSPACE_DB", "ACCELOPT_MEMORY_DB"})
            qunsetenv(name);
        const QString before = QCoreApplication::applicationName();
        QCoreApplication::setApplicationName(QStringLiteral("accelopt"));
        const QStringList cli{HostRegistry::defaultPath(), SessionStore::defaultPath(),
                              ExperienceStore::defaultPath()};
        QCoreApplication::setApplicationName(QStringLiteral("AccelOpt Workbench"));
        const QStringList gui{HostRegistry::defaultPath(), SessionStore::defaultPath(),
                              ExperienceStore::defaultPath()};
        QCoreApplication::setApplicationName(before);
        QCOMPARE(gui, cli);
        QCOMPARE(QFileInfo(cli.at(1)).dir(), QFileInfo(cli.at(0)).dir());
        QCOMPARE(QFileInfo(cli.at(2)).dir(), QFileInfo(cli.at(0)).dir());
        QCOMPARE(QFileInfo(cli.at(0)).dir().dirName(), QStringLiteral("AccelOpt"));
    }

    void malformedFileIsRefusedAndKept_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("says");
        const QByteArray ssh = json("'kind': 'ssh', 'ssh_host': 'box'");
        QTest::newRow("truncated") << QByteArray(json("{'version': 1, 'hosts': [")) << "not valid JSON";
        QTest::newRow("array") << QByteArray("[]") << "must hold an object";
        QTest::newRow("number") << QByteArray("42") << "not valid JSON";
        QTest::newRow("no version") << QByteArray(json("{'hosts': []}")) << "has version (none)";
        QTest::newRow("version 2") << QByteArray(json("{'version': 2, 'hosts': []}")) << "has version 2";
        QTest::newRow("version 1.5") << QByteArray(json("{'version': 1.5, 'hosts': []}")) << "has version 1.5";
        QTest::newRow("version string") << QByteArray(json("{'version': '1', 'hosts': []}")) << "has version \"1\"";
        QTest::newRow("hosts object") << QByteArray(json("{'version': 1, 'hosts': {'a': 1}}"))
                                      << "\"hosts\" must be an array";
        QTest::newRow("hosts string") << QByteArray(json("{'version': 1, 'hosts': 'none'}"))
                                      << "\"hosts\" must be an array";
        QTest::newRow("entry number") << QByteArray(json("{'version': 1, 'hosts': [1]}")) << "entry 1: a host entry must be an object";
        QTest::newRow("entry local") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'local'}]}"))
                                     << "built-in host's name";
        QTest::newRow("duplicate") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', ") + ssh + json("}, {'name': 'a', ") + ssh + "}]}")
                                   << "a second host named 'a'";
        QTest::newRow("slots string") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'slots': '4'}]}"))
                                      << "'slots' must be a whole number, not \"4\"";
        QTest::newRow("slots fraction") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'slots': 1.5}]}"))
                                        << "'slots' must be a whole number";
        QTest::newRow("port string") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'port': '22', ") + ssh + "}]}")
                                     << "'port' must be a whole number";
        QTest::newRow("env array") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'env': ['X=1']}]}"))
                                   << "'env' must be an object";
        QTest::newRow("env number") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'env': {'X': 1}}]}"))
                                    << "'env' must be an object";
        QTest::newRow("name number") << QByteArray(json("{'version': 1, 'hosts': [{'name': 7}]}"))
                                     << "'name' must be a string";
        QTest::newRow("python null") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'python': null}]}"))
                                     << "'python' must be a string";
        QTest::newRow("ssh without host") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'kind': 'ssh'}]}"))
                                          << "needs ssh_host";
        // ssh_host goes on ssh's command line: an option there runs a command.
        QTest::newRow("ssh host option") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'kind': 'ssh', "
                                                            "'ssh_host': '-oProxyCommand=x'}]}"))
                                         << "ssh_host '-oProxyCommand=x' must not start with '-'";
        QTest::newRow("ssh user space") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'user': 'a b', ") + ssh + "}]}")
                                        << "user 'a b' must not start with '-' or hold spaces";
        QTest::newRow("bad target") << QByteArray(json("{'version': 1, 'hosts': [{'name': 'a', 'target': 'trn9'}]}"))
                                    << "target must be";
    }

    void malformedFileIsRefusedAndKept()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, says);
        const QString path = write(content);
        HostRegistry registry(path);
        QString error;
        QVERIFY(!registry.load(error));
        QVERIFY2(error.contains(says), qPrintable(error));
        QVERIFY2(error.contains(path), qPrintable(error));
        HostConfig added;
        added.name = QStringLiteral("new");
        QVERIFY(registry.add(added, error));
        QVERIFY(!registry.save(error));
        QCOMPARE(read(path), content);
    }

    void oversizedFileIsRefusedBeforeParsing()
    {
        // A valid 60 MB file once read as "unterminated string" (only its first 4 MiB were read).
        QByteArray big = json("{'version': 1, 'notes': '");
        big += QByteArray(HostRegistry::maxFileBytes + 100, 'x');
        big += json("', 'hosts': []}");
        const QString path = m_dir.filePath(QStringLiteral("big.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(big);
        f.close();
        HostRegistry registry(path);
        QString error;
        QVERIFY(!registry.load(error));
        QVERIFY2(error.contains(QStringLiteral("more than a hosts file may be")), qPrintable(error));
    }

    void unknownFieldsSurviveASave()
    {
        const QString path = m_dir.filePath(QStringLiteral("rich.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(json("{'version': 1, 'comment': 'team hosts', 'hosts': ["
                     "{'name': 'trn', 'kind': 'ssh', 'ssh_host': 'trn-box', 'slots': 2, 'owner': 'ana',"
                     " 'future': {'weight': 3}}]}"));
        f.close();
        HostRegistry registry(path);
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig trn;
        QVERIFY(registry.find(QStringLiteral("trn"), trn));
        trn.slotCount = 4;
        QVERIFY(registry.add(trn, error));
        HostConfig other;
        other.name = QStringLiteral("other");
        QVERIFY(registry.add(other, error));
        QVERIFY2(registry.save(error), qPrintable(error));

        const QJsonObject root = QJsonDocument::fromJson(read(path)).object();
        QCOMPARE(root.value(QStringLiteral("comment")).toString(), QStringLiteral("team hosts"));
        const QJsonArray hosts = root.value(QStringLiteral("hosts")).toArray();
        QCOMPARE(hosts.size(), 2);
        const QJsonObject saved = hosts.at(0).toObject();
        QCOMPARE(saved.value(QStringLiteral("slots")).toInt(), 4);
        QCOMPARE(saved.value(QStringLiteral("owner")).toString(), QStringLiteral("ana"));
        QCOMPARE(saved.value(QStringLiteral("future")).toObject().value(QStringLiteral("weight")).toInt(), 3);
        HostRegistry again(path);
        QVERIFY2(again.load(error), qPrintable(error));
        QCOMPARE(again.hosts().size(), 3); // local, trn, other
    }

    // The hosts a user reaches are theirs alone (issue 33): a new hosts.json is 0600 in a 0700 folder,
    // whatever the umask; one an older build left 0644 is tightened when read, with a note.
    void hostsFileIsPrivate()
    {
        const QString path = m_dir.filePath(QStringLiteral("private/hosts.json"));
        HostRegistry registry(path);
        QString error;
        QVERIFY2(registry.load(error), qPrintable(error));
        HostConfig box;
        box.name = QStringLiteral("box");
        QVERIFY(registry.add(box, error));
        const mode_t previous = ::umask(0);
        const bool saved = registry.save(error);
        ::umask(previous);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(mode(path), 0600);
        QCOMPARE(mode(QFileInfo(path).absolutePath()), 0700);

        QVERIFY(::chmod(QFile::encodeName(path).constData(), 0644) == 0);
        QTest::ignoreMessage(QtWarningMsg,
                             qPrintable(QStringLiteral("tightened %1 from 0644 to 0600, so other local users "
                                                       "cannot read it")
                                            .arg(path)));
        HostRegistry again(path);
        QVERIFY2(again.load(error), qPrintable(error));
        QCOMPARE(mode(path), 0600);
        QVERIFY2(again.save(error), qPrintable(error)); // a save keeps it so
        QCOMPARE(mode(path), 0600);
    }

private:
    static int mode(const QString &path)
    {
        struct stat st;
        return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 0777) : -1;
    }
};

QTEST_GUILESS_MAIN(TestHostRegistry)
#include "tst_hostregistry.moc"
