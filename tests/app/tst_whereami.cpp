#include "appcontext.h"
#include "candidatetab.h"
#include "common/datapaths.h"
#include "common/loghub.h"
#include "comparecontroller.h"
#include "compareview.h"
#include "editortabs.h"
#include "export/taskdetector.h"
#include "isolatedsettings.h"
#include "itemmodels/searchstate.h"
#include "kerneleditor.h"
#include "mainwindow.h"
#include "model/tasksources.h"
#include "resultsdock.h"
#include "scriptedprompts.h"
#include "store/sessionsnapshot.h"

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

// Issue 32, "where am I": the window title, the status bar, the tabs and the Results rows say which file of
// which task is in front of the user, and comparisons are named by what they compare, not by hashes.
class TestWhereAmI : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;

    QString put(const QString &relative, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(relative);
        QDir().mkpath(QFileInfo(path).absolutePath());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write(bytes);
        return path;
    }

    static QString siluBaseline()
    {
        return QDir(DataPaths::tasksDir()).filePath(QStringLiteral("silu/baseline.py"));
    }

    static QString cursorText(MainWindow &window)
    {
        for (QLabel *label : window.statusBar()->findChildren<QLabel *>())
            if (label->text().startsWith(QStringLiteral("Ln ")))
                return label->text();
        return QString();
    }

    static Candidate candidate(const QString &id, int iteration, Candidate::Origin origin, int plan = -1,
                               int sample = -1, int fix = 0)
    {
        Candidate c;
        c.id = id;
        c.sessionId = QStringLiteral("5e55105e-0000-0000-0000-000000000000");
        c.iteration = iteration;
        c.origin = origin;
        c.planIndex = plan;
        c.sampleIndex = sample;
        c.fixRound = fix;
        c.source = QStringLiteral("x = %1\n").arg(id);
        return c;
    }

private Q_SLOTS:
    void initTestCase()
    {
        LogHub::install();
        QVERIFY(m_dir.isValid());
        // The Benchmark's session-free run still opens a workspace: a private one.
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace.sqlite")).toUtf8());
        qputenv("ACCELOPT_MEMORY_DB", m_dir.filePath(QStringLiteral("memory.sqlite")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        QSettings().setValue(QStringLiteral("run/size"), QStringLiteral("small"));
    }

    void titleNamesTheTaskAndFileAndMarksChanges()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(siluBaseline()));
        KernelEditor *editor = window.editors()->currentEditor();
        QCOMPARE(window.editors()->tabText(window.editors()->currentIndex()),
                 QStringLiteral("silu · baseline.py"));
        QVERIFY2(window.windowTitle().startsWith(QStringLiteral("silu · baseline.py[*]")),
                 qPrintable(window.windowTitle()));
        QVERIFY(!window.isWindowModified());
        editor->setFocus();
        QTest::keyClicks(editor, QStringLiteral("x"));
        QVERIFY(window.isWindowModified());
        QCOMPARE(window.editors()->tabText(window.editors()->currentIndex()),
                 QStringLiteral("silu · baseline.py *"));
        editor->undo();
        editor->setModified(false);
        QVERIFY(!window.isWindowModified());
    }

    void lineAndColumnFollowTheCursorInEveryTab()
    {
        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(put(QStringLiteral("a.py"), "one\ntwo\nthree\n")));
        // A tab opened without the window's File menu (as candidates and Take Right Side open theirs).
        KernelEditor *other = window.editors()->newKernel();
        other->setText(QStringLiteral("first\nsecond line\n"));
        // Scintilla tells a cursor move with its next UI update, hence QTRY.
        other->setCursorPosition(1, 4);
        QTRY_COMPARE(cursorText(window), QStringLiteral("Ln 2, Col 5"));
        other->setCursorPosition(0, 2);
        QTRY_COMPARE(cursorText(window), QStringLiteral("Ln 1, Col 3"));
        window.editors()->setCurrentIndex(0);
        window.editors()->currentEditor()->setCursorPosition(2, 3);
        QTRY_COMPARE(cursorText(window), QStringLiteral("Ln 3, Col 4"));
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("a.py[*]")));
    }

    void theTaskJsonNameNamesTheTask()
    {
        // A task folder copied under another name is still the task its task.json names.
        const QString baseline =
            put(QStringLiteral("tasks/copy_of_silu_v2/baseline.py"), KernelFileText(siluBaseline()).toUtf8());
        QFile::copy(QDir(DataPaths::tasksDir()).filePath(QStringLiteral("silu/reference.py")),
                    m_dir.filePath(QStringLiteral("tasks/copy_of_silu_v2/reference.py")));
        put(QStringLiteral("tasks/copy_of_silu_v2/task.json"), "{\"name\": \"silu_wide\"}");
        const auto found = TaskDetector::detect(baseline, QString(), DataPaths::tasksDir());
        QVERIFY(found);
        QCOMPARE(found->name, QStringLiteral("silu_wide"));
        QString error;
        const auto sources = TaskSources::load(found->ref, DataPaths::tasksDir(), error);
        QVERIFY2(sources, qPrintable(error));
        QCOMPARE(sources->name, QStringLiteral("silu_wide"));

        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(baseline));
        QCOMPARE(window.editors()->tabText(window.editors()->currentIndex()),
                 QStringLiteral("silu_wide · baseline.py"));
    }

    void resultsRowNamesTaskAndFile()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(siluBaseline()));
        QSignalSpy finished(window.resultsDock(), &ResultsDock::finished);
        QTest::keyClick(window.editors()->currentEditor(), Qt::Key_F5);
        QVERIFY2(prompts->warnings.isEmpty(), qPrintable(prompts->warnings.join(u'\n')));
        QAbstractItemModel *rows =
            window.resultsDock()->findChild<QTableView *>(QStringLiteral("resultsView"))->model();
        QCOMPARE(rows->rowCount(), 1);
        QStringList cells;
        for (int c = 0; c < rows->columnCount(); ++c)
            cells << rows->index(0, c).data().toString();
        QVERIFY2(cells.contains(QStringLiteral("silu · baseline.py")), qPrintable(cells.join(u'|')));
        QVERIFY2(cells.contains(QStringLiteral("silu")), qPrintable(cells.join(u'|')));
        // The benchmark is left to finish before the window goes, so no run outlives the test; the timeout is
        // a backstop against a hang, not a clock.
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 300000);
    }

    void candidateAndCompareTabsAreNamedByWhatTheyShow()
    {
        QCOMPARE(CandidateTab::title(candidate(QStringLiteral("aaaaaaaa11"), 0, Candidate::Origin::Baseline)),
                 QStringLiteral("baseline"));
        QCOMPARE(CandidateTab::title(
                     candidate(QStringLiteral("bbbbbbbb22"), 2, Candidate::Origin::Executor, 2, 0)),
                 QStringLiteral("it. 2 plan 3.1"));
        QCOMPARE(CandidateTab::title(
                     candidate(QStringLiteral("cccccccc33"), 3, Candidate::Origin::Fixer, 0, 0, 1)),
                 QStringLiteral("it. 3 fix 1"));

        MainWindow window(std::make_shared<ScriptedPrompts>());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        SessionSnapshot snapshot;
        snapshot.session.id = QStringLiteral("5e55105e-0000-0000-0000-000000000000");
        snapshot.session.taskName = QStringLiteral("silu");
        snapshot.candidates = {candidate(QStringLiteral("aaaaaaaa11"), 0, Candidate::Origin::Baseline),
                               candidate(QStringLiteral("bbbbbbbb22"), 2, Candidate::Origin::Executor, 2, 0)};
        snapshot.candidates[1].parentId = QStringLiteral("aaaaaaaa11");
        window.context()->search()->load(snapshot);
        window.compare()->compareCandidates(QStringLiteral("aaaaaaaa11"), QStringLiteral("bbbbbbbb22"));
        EditorTabs *tabs = window.editors();
        const QString title = tabs->tabText(tabs->currentIndex());
        QCOMPARE(title, QStringLiteral("silu · baseline ↔ it. 2 plan 3.1"));
        QVERIFY(!title.contains(QStringLiteral("aaaaaaaa")));
        // A memory item's pair (named by the engine with ids) reads without them too.
        ComparePair pair;
        pair.left.name = QStringLiteral("slow 1a2b3c4d (iteration 3)");
        pair.left.candidateId = QStringLiteral("1a2b3c4d99");
        pair.right.name = QStringLiteral("fast 5e6f7a8b (iteration 4)");
        pair.right.candidateId = QStringLiteral("5e6f7a8b99");
        QCOMPARE(CompareView::title(pair), QStringLiteral("slow (iteration 3) ↔ fast (iteration 4)"));
    }

private:
    static QString KernelFileText(const QString &path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }
};

QTEST_MAIN(TestWhereAmI)
#include "tst_whereami.moc"
