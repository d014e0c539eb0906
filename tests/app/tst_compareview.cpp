#include "appcontext.h"
#include "common/loghub.h"
#include "comparecontroller.h"
#include "compareview.h"
#include "diffpane.h"
#include "editortabs.h"
#include "exportsession.h"
#include "isolatedsettings.h"
#include "itemmodels/modelroles.h"
#include "itemmodels/searchstate.h"
#include "kerneleditor.h"
#include "launchoptions.h"
#include "lessonpanel.h"
#include "llm/llmconfig.h"
#include "mainwindow.h"
#include "memory/experiencestore.h"
#include "metricdeltamodel.h"
#include "model/kernelfile.h"
#include "portcontroller.h"
#include "scriptedagents.h"
#include "scriptedllmserver.h"
#include "scriptedprompts.h"
#include "searchdock.h"
#include "store/sessionstore.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>

// The Compare view as a kernel engineer uses it: the panes mark the right lines and characters (byte offsets
// in Scintilla, whatever the script), F7 and Shift+F7 visit every change, folding keeps the panes aligned,
// the unified listing, and the window's ways in (files, tabs, the Search dock's context menu); then a real
// measurement on the local host (nkisim, small size), the summarizer on ScriptedLlmServer (a STAND-IN for a
// hosted model, speaking the OpenAI-compatible API on loopback) and the lesson stored in a real memory file.
class TestCompareView : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;
    ScriptedLlmServer m_server;
    ScriptedAgents m_agents;
    int m_summarizerCalls = 0;
    ExportSession m_session;

    static QString casePath(const QString &name, const QString &file)
    {
        return QStringLiteral(ACCELOPT_SOURCE_DIR "/tests/core/diff/cases/%1/%2").arg(name, file);
    }
    static QString fixture(const QString &name)
    {
        return QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu/") + name;
    }
    static QString silusBaseline() { return QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline.py"); }
    QString artifact(const QString &name) const { return QStringLiteral(ACCELOPT_TEST_ARTIFACTS "/") + name; }

    static ComparePair filePair(const QString &left, const QString &right)
    {
        ComparePair pair;
        for (auto [path, side] : {std::pair{left, &pair.left}, std::pair{right, &pair.right}}) {
            const KernelFile::ReadResult read = KernelFile::read(path);
            side->text = read.text;
            side->filePath = path;
            side->name = QFileInfo(path).fileName();
        }
        return pair;
    }
    static CompareView *currentCompare(MainWindow &window)
    {
        return qobject_cast<CompareView *>(window.editors()->currentWidget());
    }
    // Picks `text` from the context menu about to open, once it is up.
    static void whenMenuOpens(const QString &text)
    {
        auto *poll = new QTimer;
        poll->setInterval(30);
        QObject::connect(poll, &QTimer::timeout, [poll, text] {
            auto *menu = qobject_cast<QMenu *>(QApplication::activePopupWidget());
            if (!menu)
                return;
            poll->stop();
            poll->deleteLater();
            for (QAction *a : menu->actions())
                if (a->text() == text && a->isEnabled()) {
                    menu->setActiveAction(a);
                    QTest::keyClick(menu, Qt::Key_Return);
                    return;
                }
            menu->close(); // not offered: the test's check of the new tab fails
        });
        poll->start();
    }
    static void shoot(QWidget &window, const QString &path)
    {
        QCoreApplication::processEvents();
        QVERIFY2(window.grab().save(path), qPrintable(path));
    }

private Q_SLOTS:
    void initTestCase()
    {
        LogHub::install();
        QVERIFY(m_dir.isValid());
        const QString db = m_dir.filePath(QStringLiteral("workspace.sqlite"));
        qputenv("ACCELOPT_WORKSPACE_DB", db.toUtf8());
        qputenv("ACCELOPT_MEMORY_DB", m_dir.filePath(QStringLiteral("memory.sqlite")).toUtf8());
        qputenv("ACCELOPT_LLM_CONFIG", m_dir.filePath(QStringLiteral("llm.json")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        QSettings().setValue(QStringLiteral("run/size"), QStringLiteral("small"));
        QSettings().setValue(QStringLiteral("compare/context"), 3);

        QVERIFY(m_server.start());
        QString error;
        QVERIFY2(m_agents.load(QStringLiteral(ACCELOPT_TEST_FIXTURES "/optimize/silu"), silusBaseline(), error),
                 qPrintable(error));
        m_server.setHandler([this](const ScriptedLlmServer::Request &r) {
            if (ScriptedAgents::roleOf(r) == QStringLiteral("summarizer"))
                ++m_summarizerCalls;
            return m_agents.reply(r);
        });
        LlmConfig config;
        Endpoint e;
        e.name = QStringLiteral("stand-in");
        e.baseUrl = m_server.baseUrl();
        e.model = QStringLiteral("stand-in-model");
        config.endpoints << e;
        for (AgentRole role : AgentRoles::all())
            config.roster.assign(role, {{e.name, 1.0}});
        config.retry.maxAttempts = 1;
        QVERIFY2(config.save(m_dir.filePath(QStringLiteral("llm.json")), &error), qPrintable(error));

        SessionStore store(db);
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        QVERIFY2(m_session.create(store, error), qPrintable(error));
    }

    void panesMarkTheChangedLinesAndCharacters_data()
    {
        QTest::addColumn<QString>("name");
        for (const char *name : {"kernel_step", "non_ascii", "crlf", "tabs", "all_changed", "empty_left", "identical"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void panesMarkTheChangedLinesAndCharacters()
    {
        QFETCH(QString, name);
        CompareView view(filePair(casePath(name, QStringLiteral("left.py")), casePath(name, QStringLiteral("right.py"))));
        view.setFolded(false);
        const KernelDiff::Result &diff = view.diff();
        DiffPane *panes[2] = {view.leftPane(), view.rightPane()};
        QCOMPARE(panes[0]->lines(), panes[1]->lines()); // row i is line i on both sides
        using Kind = KernelDiff::Kind;
        for (int row = 0; row < diff.rows.size(); ++row) {
            const KernelDiff::Row &r = diff.rows.at(row);
            for (int s = 0; s < 2; ++s) {
                DiffPane *pane = panes[s];
                const bool left = s == 0;
                const int line = pane->lineOfRow(row);
                QCOMPARE(line, row);
                const int number = left ? r.left : r.right;
                const QString text = number >= 0 ? (left ? diff.leftLines : diff.rightLines).at(number) : QString();
                QCOMPARE(pane->text(line).remove(u'\n'), text);
                QCOMPARE(pane->marginText(line).trimmed(), number >= 0 ? QString::number(number + 1) : QString());
                const DiffPane::Marker own = left ? DiffPane::RemovedMarker : DiffPane::AddedMarker;
                QCOMPARE(pane->hasMarker(line, own), r.kind != Kind::Same && number >= 0);
                QCOMPARE(pane->hasMarker(line, DiffPane::FillerMarker), number < 0);
                const QList<KernelDiff::Span> &spans = left ? r.leftSpans : r.rightSpans;
                QCOMPARE(pane->changedRanges(line).size(), spans.size());
                // The indicator sits on the changed characters' bytes, not on their UTF-16 offsets.
                const long start = pane->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, line);
                for (const KernelDiff::Span &span : spans) {
                    const long from = start + text.left(span.start).toUtf8().size();
                    const long to = from + text.mid(span.start, span.length).toUtf8().size();
                    QVERIFY2(pane->SendScintilla(QsciScintillaBase::SCI_INDICATORALLONFOR, from) != 0,
                             qPrintable(QStringLiteral("row %1 byte %2").arg(row).arg(from)));
                    QVERIFY(pane->SendScintilla(QsciScintillaBase::SCI_INDICATORALLONFOR, to - 1) != 0);
                    if (to < start + text.toUtf8().size())
                        QCOMPARE(pane->SendScintilla(QsciScintillaBase::SCI_INDICATORALLONFOR, to) != 0,
                                 std::any_of(spans.cbegin(), spans.cend(),
                                             [&](const KernelDiff::Span &o) { return o.start == span.start + span.length; }));
                }
            }
        }
        if (name == QStringLiteral("identical"))
            QVERIFY(view.summary()->text().startsWith(QStringLiteral("identical")));
    }

    void f7AndShiftF7VisitEveryChange()
    {
        CompareView view(filePair(casePath(QStringLiteral("large"), QStringLiteral("left.py")),
                                  casePath(QStringLiteral("large"), QStringLiteral("right.py"))));
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QList<int> changes = view.diff().changes;
        QVERIFY(changes.size() >= 3);
        view.leftPane()->setFocus();
        QCOMPARE(view.currentChange(), 0); // opened at the first change
        const auto caretRow = [](DiffPane *pane) {
            int line = 0, index = 0;
            pane->getCursorPosition(&line, &index);
            return pane->rowOfLine(line);
        };
        QCOMPARE(caretRow(view.leftPane()), changes.first());
        for (int i = 1; i < changes.size(); ++i) {
            QTest::keyClick(view.leftPane(), Qt::Key_F7);
            QCOMPARE(view.currentChange(), i);
            QCOMPARE(caretRow(view.leftPane()), changes.at(i));
            QCOMPARE(caretRow(view.rightPane()), changes.at(i));
        }
        QTest::keyClick(view.leftPane(), Qt::Key_F7); // past the last: stays there
        QCOMPARE(view.currentChange(), changes.size() - 1);
        for (int i = int(changes.size()) - 2; i >= 0; --i) {
            QTest::keyClick(view.rightPane(), Qt::Key_F7, Qt::ShiftModifier);
            QCOMPARE(view.currentChange(), i);
            QCOMPARE(caretRow(view.rightPane()), changes.at(i));
        }
        // A click below the third change makes F7 continue from there.
        DiffPane *left = view.leftPane();
        left->goToRow(changes.at(2));
        const long below = left->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, left->lineOfRow(changes.at(2)) + 1);
        const QPoint at(int(left->SendScintilla(QsciScintillaBase::SCI_POINTXFROMPOSITION, 0UL, below)) + 4,
                        int(left->SendScintilla(QsciScintillaBase::SCI_POINTYFROMPOSITION, 0UL, below)) + 4);
        QTest::mouseClick(left->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE(view.currentChange(), 2);
        QTest::keyClick(view.leftPane(), Qt::Key_F7);
        QCOMPARE(view.currentChange(), 3 < changes.size() ? 3 : int(changes.size()) - 1);
        // The same walk in the unified listing.
        QTest::mouseClick(view.findChild<QToolBar *>()->widgetForAction(view.unifiedAction()), Qt::LeftButton);
        QVERIFY(view.isUnified());
        QCOMPARE(view.activePane(), view.unifiedPane());
        view.unifiedPane()->setFocus();
        QTest::keyClick(view.unifiedPane(), Qt::Key_F7, Qt::ShiftModifier);
        int line = 0, index = 0;
        view.unifiedPane()->getCursorPosition(&line, &index);
        QCOMPARE(view.unifiedPane()->rowOfLine(line), changes.at(view.currentChange()));
        view.setUnified(false);
    }

    void unifiedListsRemovedLinesBeforeAdded()
    {
        CompareView view(filePair(casePath(QStringLiteral("kernel_step"), QStringLiteral("left.py")),
                                  casePath(QStringLiteral("kernel_step"), QStringLiteral("right.py"))));
        view.setFolded(false);
        DiffPane *u = view.unifiedPane();
        const KernelDiff::Result &diff = view.diff();
        QCOMPARE(u->lines(), int(diff.rows.size()) + diff.changed); // a changed row is two lines
        bool sawAddedInRun = false;
        int removed = 0, added = 0;
        for (int line = 0; line < u->lines(); ++line) {
            const QString margin = u->marginText(line);
            if (margin.endsWith(u'-')) {
                QVERIFY2(!sawAddedInRun, "a removed line after an added one within a run");
                QVERIFY(u->hasMarker(line, DiffPane::RemovedMarker));
                ++removed;
            } else if (margin.endsWith(u'+')) {
                sawAddedInRun = true;
                QVERIFY(u->hasMarker(line, DiffPane::AddedMarker));
                ++added;
            } else {
                sawAddedInRun = false;
            }
        }
        QCOMPARE(removed, diff.changed + diff.removed);
        QCOMPARE(added, diff.changed + diff.added);
    }

    void foldingKeepsThePanesAligned()
    {
        CompareView view(filePair(casePath(QStringLiteral("large"), QStringLiteral("left.py")),
                                  casePath(QStringLiteral("large"), QStringLiteral("right.py"))));
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setFolded(true);
        view.setContext(3);
        const int folded3 = view.leftPane()->hiddenLines();
        QVERIFY2(folded3 > 5000, qPrintable(QString::number(folded3)));
        QCOMPARE(view.rightPane()->hiddenLines(), folded3);
        view.setContext(0);
        QVERIFY(view.leftPane()->hiddenLines() > folded3);
        view.setContext(3);
        // Scrolling one pane scrolls the other to the same row, folded or not.
        for (bool folded : {true, false}) {
            view.setFolded(folded);
            QScrollBar *left = view.leftPane()->verticalScrollBar(), *right = view.rightPane()->verticalScrollBar();
            QCOMPARE(left->maximum(), right->maximum());
            left->setValue(left->maximum() / 2);
            QCOMPARE(right->value(), left->value());
            const int first = int(view.leftPane()->SendScintilla(QsciScintillaBase::SCI_GETFIRSTVISIBLELINE));
            QCOMPARE(int(view.rightPane()->SendScintilla(QsciScintillaBase::SCI_GETFIRSTVISIBLELINE)), first);
            right->setValue(right->maximum() / 4);
            QCOMPARE(left->value(), right->value());
        }
        view.setFolded(false);
        QCOMPARE(view.leftPane()->hiddenLines(), 0);
        // Every change stays visible when folded: F7 reaches the last one.
        view.setFolded(true);
        for (int i = 0; i < view.diff().changes.size(); ++i)
            view.nextChange();
        DiffPane *pane = view.leftPane();
        const int lastLine = pane->lineOfRow(view.diff().changes.last());
        QVERIFY(pane->SendScintilla(QsciScintillaBase::SCI_GETLINEVISIBLE, lastLine) != 0);
    }

    void windowComparesFilesAndTabsAndRefusesBadInput()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1500, 950);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        EditorTabs *tabs = window.editors();

        // File > Compare Files…: two files picked in the dialog.
        prompts->openAnswers = {fixture(QStringLiteral("slow1.py")), fixture(QStringLiteral("fast1.py"))};
        window.compare()->compareFilesAction()->trigger();
        CompareView *view = currentCompare(window);
        QVERIFY(view);
        QCOMPARE(tabs->tabText(tabs->currentIndex()), QStringLiteral("slow1.py ↔ fast1.py"));
        QVERIFY(!tabs->currentEditor()); // not a document: F5 and Save leave it alone
        QVERIFY(!view->diff().identical());

        // Bad input: a missing file, a file that is not UTF-8, a folder.
        const QString latin1 = m_dir.filePath(QStringLiteral("latin1.py"));
        QFile f(latin1);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("x = 1\n# caf\xe9\n");
        f.close();
        const int before = tabs->count();
        for (const auto &[path, says] :
             {std::pair{QStringLiteral("/nonexistent/fast.py"), QStringLiteral("/nonexistent/fast.py is not a file")},
              std::pair{latin1, QStringLiteral("not valid UTF-8")},
              std::pair{m_dir.path(), QStringLiteral("is not a file")}}) {
            prompts->warnings.clear();
            QVERIFY(!window.compareFiles(fixture(QStringLiteral("slow1.py")), path));
            QCOMPARE(prompts->warnings.size(), 1);
            QVERIFY2(prompts->warnings.first().contains(says), qPrintable(prompts->warnings.first()));
        }
        QCOMPARE(tabs->count(), before);

        // View > Compare Tabs (Ctrl+Shift+D): the current tab on the right.
        QVERIFY(window.openFile(fixture(QStringLiteral("fast2.py"))));
        QVERIFY(window.openFile(fixture(QStringLiteral("fast1.py"))));
        prompts->itemAnswers = {QStringLiteral("%1: fast2.py").arg(tabs->indexOfFile(fixture(QStringLiteral("fast2.py"))) + 1)};
        QTest::keyClick(tabs->currentEditor(), Qt::Key_D, Qt::ControlModifier | Qt::ShiftModifier);
        view = currentCompare(window);
        QVERIFY(view);
        QCOMPARE(view->pair().left.filePath, fixture(QStringLiteral("fast2.py")));
        QCOMPARE(view->pair().right.filePath, fixture(QStringLiteral("fast1.py")));

        // Take Right Side: an editable copy in a new tab.
        view->takeRightAction()->trigger();
        KernelEditor *copy = tabs->currentEditor();
        QVERIFY(copy);
        QVERIFY(!copy->isReadOnly());
        QCOMPARE(copy->text(), view->pair().right.text);
        QVERIFY(copy->isModified());

        // A comparison closes without questions; the unsaved copy still asks.
        QVERIFY(tabs->closeEditor(tabs->indexOf(view)));
        QVERIFY(tabs->hasUnsavedChanges());
        prompts->saveAnswers = {UserPrompts::SaveChoice::Discard};
        QVERIFY(tabs->closeAll());
    }

    void portToCurrentNkiOpensThePortBesideTheOriginal()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1500, 950);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openFile(silusBaseline())); // detected as the silu task from its folder
        QAction *port = window.port()->portAction();
        port->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(currentCompare(window) != nullptr, 120000);
        QVERIFY2(prompts->warnings.isEmpty(), qPrintable(prompts->warnings.join(u'\n')));
        CompareView *view = currentCompare(window);
        QCOMPARE(view->pair().left.filePath, silusBaseline());
        QVERIFY(view->pair().right.text.startsWith(QStringLiteral("import nki")));
        QVERIFY(view->pair().right.name.contains(QStringLiteral("ported by rules")));
        QCOMPARE(view->pair().task, QStringLiteral("silu"));
        QTRY_VERIFY(port->isEnabled());
        shoot(window, artifact(QStringLiteral("port-to-current-nki.png")));

        // A kernel that is current already is not ported again.
        QVERIFY(window.openFile(QStringLiteral(ACCELOPT_SOURCE_DIR "/nkibench/tasks/silu/baseline_current.py")));
        const int tabs = window.editors()->count();
        port->trigger();
        QCOMPARE(prompts->warnings.size(), 1);
        QVERIFY2(prompts->warnings.first().contains(QStringLiteral("already uses the current API")),
                 qPrintable(prompts->warnings.first()));
        QCOMPARE(window.editors()->count(), tabs);
    }

    void searchDockComparesACandidateWithItsParent()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1500, 950);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openSession(m_session.sessionId);
        SearchDock *dock = window.searchDock();
        QTRY_COMPARE_WITH_TIMEOUT(window.context()->search()->sessionId(), m_session.sessionId, 10000);
        QTRY_VERIFY(window.context()->search()->find(m_session.c1a));

        // Right-click c1a in the table, "Compare with Parent".
        dock->tabs()->setCurrentIndex(1); // Candidates: the table, under its filter
        QTableView *table = dock->table();
        QModelIndex index;
        for (int row = 0; row < table->model()->rowCount(); ++row)
            if (table->model()->index(row, 0).data(ModelRoles::CandidateId).toString() == m_session.c1a)
                index = table->model()->index(row, 0);
        QVERIFY(index.isValid());
        table->scrollTo(index);
        table->setCurrentIndex(index);
        whenMenuOpens(QStringLiteral("Compare with Parent"));
        dock->showContextMenu(table, table->viewport()->mapToGlobal(table->visualRect(index).center()));
        CompareView *view = currentCompare(window);
        QVERIFY(view);
        QCOMPARE(view->pair().left.candidateId, m_session.baselineId);
        QCOMPARE(view->pair().right.candidateId, m_session.c1a);
        QVERIFY(view->deltaView()->isVisibleTo(&window));
        const MetricDelta latency = view->deltas()->deltas().first();
        QCOMPARE(latency.key, QStringLiteral("latency_ms"));
        QCOMPARE(*latency.ratio(), 0.5);
        QCOMPARE(view->deltas()->index(0, MetricDeltaModel::VerdictColumn).data().toString(), QStringLiteral("better"));
        // The memory has no lesson for it; both are measured, so Summarize is offered.
        QTRY_VERIFY(view->lesson()->state()->text().startsWith(QStringLiteral("No lesson yet")));
        QVERIFY(view->lesson()->summarizeButton()->isEnabled());

        // Two selected, "Compare Selected": the slower goes left, whatever the order of selection.
        table->clearSelection();
        for (const QString &id : {m_session.c2a, m_session.c1d}) {
            for (int row = 0; row < table->model()->rowCount(); ++row)
                if (table->model()->index(row, 0).data(ModelRoles::CandidateId).toString() == id)
                    table->selectionModel()->select(table->model()->index(row, 0),
                                                    QItemSelectionModel::Select | QItemSelectionModel::Rows);
        }
        QCOMPARE(dock->selectedCandidates().size(), 2);
        whenMenuOpens(QStringLiteral("Compare Selected"));
        dock->showContextMenu(table, table->viewport()->mapToGlobal(table->visualRect(index).center()));
        view = currentCompare(window);
        QVERIFY(view);
        QCOMPARE(view->pair().left.candidateId, m_session.c1d); // 2.5 ms
        QCOMPARE(view->pair().right.candidateId, m_session.c2a); // 1.6 ms
        shoot(window, artifact(QStringLiteral("compare-candidates.png")));
    }

    void measureThenSummarizeStoresTheLesson()
    {
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.compareFiles(silusBaseline(), fixture(QStringLiteral("fast1.py"))));
        CompareView *view = currentCompare(window);
        QVERIFY(view);
        LessonPanel *lesson = view->lesson();
        QTRY_VERIFY(lesson->state()->text().contains(QStringLiteral("Measure both kernels first")));
        QVERIFY(!lesson->summarizeButton()->isEnabled());
        QVERIFY(!view->deltaView()->isVisibleTo(view));

        // Measure Both: silu is found from the baseline's file; both run on the local host at small size.
        QTest::mouseClick(view->measureButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view->pair().measured(), 180000);
        QVERIFY(view->deltaView()->isVisibleTo(view));
        QCOMPARE(view->pair().task, QStringLiteral("silu"));
        QVERIFY(*view->pair().speedup() > 1.0);
        QTRY_VERIFY(lesson->summarizeButton()->isEnabled());
        QVERIFY(view->summary()->text().contains(QStringLiteral("faster")));
        shoot(window, artifact(QStringLiteral("compare-measured.png")));

        // Summarize, decline: the draft shows, nothing is stored, Summarize is offered again.
        prompts->confirmAnswers = {false};
        QTest::mouseClick(lesson->summarizeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(lesson->state()->text().contains(QStringLiteral("draft")), 30000);
        QVERIFY(lesson->summarizeButton()->isVisible() && lesson->summarizeButton()->isEnabled());
        {
            ExperienceStore memory(m_dir.filePath(QStringLiteral("memory.sqlite")));
            QVERIFY(memory.open());
            QCOMPARE(memory.count(), 0);
        }
        prompts->confirmations.clear();
        // Summarize, confirm: the lesson goes into the memory file.
        prompts->confirmAnswers = {true};
        QTest::mouseClick(lesson->summarizeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(lesson->state()->text().startsWith(QStringLiteral("From the optimization memory")),
                                 30000);
        QCOMPARE(prompts->confirmations.size(), 1);
        const QString title = m_agents.lessonTitle(QStringLiteral("baseline -> fast1"));
        QVERIFY(!title.isEmpty());
        QVERIFY(prompts->confirmations.first().contains(title));
        QVERIFY(lesson->text()->toPlainText().contains(title));
        shoot(window, artifact(QStringLiteral("compare-lesson.png")));
        {
            ExperienceStore memory(m_dir.filePath(QStringLiteral("memory.sqlite")));
            QVERIFY2(memory.open(), qPrintable(memory.lastError()));
            const QList<ExperienceRecord> all = memory.list();
            QCOMPARE(all.size(), 1);
            QCOMPARE(all.first().experience.title, title);
            QCOMPARE(all.first().task, QStringLiteral("silu"));
            QVERIFY(!all.first().isNegative());
        }

        // The same pair again (the other way round, and with CRLF endings): the memory answers, no model call.
        const int calls = m_summarizerCalls;
        QFile crlf(m_dir.filePath(QStringLiteral("baseline_crlf.py")));
        QVERIFY(crlf.open(QIODevice::WriteOnly));
        crlf.write(view->pair().left.text.toUtf8().replace("\n", "\r\n"));
        crlf.close();
        QVERIFY(window.compareFiles(fixture(QStringLiteral("fast1.py")), crlf.fileName()));
        CompareView *again = currentCompare(window);
        QVERIFY(again != view);
        QTRY_VERIFY(again->lesson()->state()->text().startsWith(QStringLiteral("From the optimization memory")));
        QCOMPARE(m_summarizerCalls, calls);
    }

    void summarizeWithoutAModelSaysWhatToDo()
    {
        // The summarizer's endpoint refuses: the panel says why and the memory stays as it was.
        m_server.setHandler([](const ScriptedLlmServer::Request &) {
            return ScriptedLlmServer::error(401, "{\"error\": {\"message\": \"Incorrect API key provided\"}}");
        });
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.openSession(m_session.sessionId);
        QTRY_VERIFY(window.context()->search()->find(m_session.c1d));
        window.compare()->compareCandidates(m_session.baselineId, m_session.c1d);
        CompareView *view = currentCompare(window);
        QVERIFY(view);
        QTRY_VERIFY(view->lesson()->summarizeButton()->isEnabled());
        QTest::mouseClick(view->lesson()->summarizeButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(view->lesson()->state()->text().contains(QStringLiteral("401")), 30000);
        QVERIFY(prompts->confirmations.isEmpty());
        QVERIFY(view->lesson()->summarizeButton()->isEnabled()); // try again once the key is fixed
        m_server.setHandler([this](const ScriptedLlmServer::Request &r) { return m_agents.reply(r); });
    }

    // A memory item opens its two kernels: the workspace's candidates with their measurements when they are
    // there, the lesson's snippets when it came from elsewhere.
    void memoryItemOpensItsPair()
    {
        ExperienceStore memory(m_dir.filePath(QStringLiteral("memory.sqlite")));
        QVERIFY2(memory.open(), qPrintable(memory.lastError()));
        ExperienceRecord known;
        known.task = QStringLiteral("silu");
        known.target = QStringLiteral("trn1");
        known.experience = {QStringLiteral("Fuse the loads"), QStringLiteral("One load instead of two."),
                            QStringLiteral("a = nl.load(x)"), QStringLiteral("a = nl.load(x[i])"), 2.0};
        known.slowCandidateId = m_session.baselineId;
        known.fastCandidateId = m_session.c1a;
        QVERIFY2(memory.add(known), qPrintable(memory.lastError()));
        ExperienceRecord imported = known;
        imported.experience.title = QStringLiteral("Imported: avoid the second pass");
        imported.experience.speedup = 0.8; // a slowdown: the slow kernel is the change, the "after"
        imported.slowCandidateId = QStringLiteral("not-in-this-workspace");
        imported.fastCandidateId = QStringLiteral("nor-this");
        QVERIFY2(memory.add(imported), qPrintable(memory.lastError()));

        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.compare()->compareExperience(known);
        QTRY_VERIFY(currentCompare(window));
        CompareView *view = currentCompare(window);
        QCOMPARE(view->pair().left.candidateId, m_session.baselineId);
        QCOMPARE(view->pair().right.candidateId, m_session.c1a);
        QVERIFY(view->pair().measured());
        QCOMPARE(view->pair().task, QStringLiteral("silu"));
        QTRY_VERIFY(view->lesson()->state()->text().startsWith(QStringLiteral("From the optimization memory")));
        QVERIFY(view->lesson()->text()->toPlainText().contains(QStringLiteral("Fuse the loads")));

        window.compare()->compareExperience(imported);
        QTRY_VERIFY(currentCompare(window) != view);
        view = currentCompare(window);
        QCOMPARE(view->pair().left.text, imported.experience.snippetAfter);
        QCOMPARE(view->pair().right.text, imported.experience.snippetBefore);
        QVERIFY(!view->pair().measured());
        QVERIFY(view->pair().left.name.contains(QStringLiteral("snippet")));
    }

    // `accelopt-workbench --diff A B`, through the same parsing and opening main() does.
    void commandLineDiffOpensTheComparison()
    {
        LaunchOptions options;
        QVERIFY2(options.parse({QStringLiteral("accelopt-workbench"), QStringLiteral("--diff"),
                                fixture(QStringLiteral("slow1.py")), fixture(QStringLiteral("fast1.py"))}),
                 qPrintable(options.error()));
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        options.apply(window);
        CompareView *view = currentCompare(window);
        QVERIFY(view);
        QCOMPARE(view->pair().left.filePath, fixture(QStringLiteral("slow1.py")));
        QCOMPARE(view->pair().right.filePath, fixture(QStringLiteral("fast1.py")));
        QCOMPARE(window.editors()->count(), 1); // compared, not also opened as editors
        shoot(window, artifact(QStringLiteral("compare-diff-option.png")));
        // A missing file is said in the window; the window stays up.
        QVERIFY(options.parse({QStringLiteral("accelopt-workbench"), QStringLiteral("--diff"),
                               fixture(QStringLiteral("slow1.py")), QStringLiteral("/nonexistent.py")}));
        options.apply(window);
        QCOMPARE(prompts->warnings.size(), 1);
        QVERIFY(prompts->warnings.first().contains(QStringLiteral("/nonexistent.py is not a file")));
    }

    void commandLineDiffWantsTwoFiles()
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(ACCELOPT_WORKBENCH_PATH), {QStringLiteral("--diff"), fixture(QStringLiteral("slow1.py"))});
        QVERIFY(process.waitForFinished(30000));
        QCOMPARE(process.exitCode(), 2);
        QVERIFY(QString::fromUtf8(process.readAllStandardError()).contains(QStringLiteral("--diff takes two kernel files")));
    }
};

QTEST_MAIN(TestCompareView)
#include "tst_compareview.moc"
