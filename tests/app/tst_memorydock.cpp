#include "appcontext.h"
#include "compareview.h"
#include "editortabs.h"
#include "experiencedetail.h"
#include "experienceeditdialog.h"
#include "isolatedsettings.h"
#include "itemmodels/experiencelistmodel.h"
#include "kerneleditor.h"
#include "lessonpanel.h"
#include "mainwindow.h"
#include "memory/experiencejson.h"
#include "memory/experiencestore.h"
#include "memorydock.h"
#include "scriptedprompts.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QPushButton>
#include <QFile>
#include <QSqlDatabase>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QTreeWidget>
#include <QUndoStack>

// The Memory dock as a person curates the optimization memory with it, over a real memory file: search as
// you type, filters, the detail pane with usage evidence, edit / pin / delete with undo from the keyboard,
// import and export, and the request to open a pair in Compare (which tst_compareview follows into the
// view). The dock works through an AppContext whose engine owns the memory (issue 32): the test waits for the
// engine's answers (settle) and reads the file through a connection of its own, as another program would.
// Screenshots go to test-artifacts.
class TestMemoryDock : public QObject
{
    Q_OBJECT
    IsolatedSettings m_settings;
    QTemporaryDir m_dir;
    int m_file = 0;

    QString artifact(const QString &name) const { return QStringLiteral(ACCELOPT_TEST_ARTIFACTS "/") + name; }
    static void shoot(QWidget &widget, const QString &path)
    {
        QCoreApplication::processEvents();
        QVERIFY2(widget.grab().save(path), qPrintable(path));
    }

    static ExperienceRecord record(const QString &task, const QString &title, double speedup,
                                   const QString &lesson)
    {
        ExperienceRecord r;
        r.task = task;
        r.target = QStringLiteral("trn2");
        r.experience.title = title;
        r.experience.lesson = lesson;
        r.experience.speedup = speedup;
        r.experience.snippetBefore = QStringLiteral("for i in nl.sequential_range(8):\n    t = nl.load(x[i])\n");
        r.experience.snippetAfter = QStringLiteral("for i in nl.affine_range(8):\n    t = nl.load(x[i])\n");
        r.sessionId = QStringLiteral("s-%1").arg(task);
        r.slowCandidateId = QStringLiteral("c-slow");
        r.fastCandidateId = QStringLiteral("c-fast");
        r.slowHash = title + QStringLiteral("-slow");
        r.fastHash = title + QStringLiteral("-fast");
        return r;
    }

    // A memory of a few experiences, one of them shown to three plans (two led to faster kernels).
    QString seededMemory(qint64 *shownId = nullptr)
    {
        const QString path = m_dir.filePath(QStringLiteral("memory-%1.sqlite").arg(++m_file));
        ExperienceStore store(path);
        if (!store.open())
            qFatal("cannot open %s", qPrintable(path));
        QList<ExperienceRecord> records{
            record(QStringLiteral("silu"), QStringLiteral("Fuse the sigmoid into one activation"), 1.8,
                   QStringLiteral("One `nisa.activation` with **scale=-1** replaces the exp and the add.")),
            record(QStringLiteral("matmul"), QStringLiteral("Keep the stationary tile in SBUF"), 2.4,
                   QStringLiteral("Loading the stationary operand once per k tile saves a DMA per step.")),
            record(QStringLiteral("matmul"), QStringLiteral("Transposing by DMA stalls the queue"), 0.7,
                   QStringLiteral("A strided DMA transpose is slower than one on the PE.")),
            record(QStringLiteral("rmsnorm_matmul"), QStringLiteral("Accumulate in PSUM across k"), 1.3,
                   QStringLiteral("Accumulating in PSUM avoids a round trip through SBUF."))};
        for (ExperienceRecord &r : records)
            if (!store.add(r))
                qFatal("cannot add: %s", qPrintable(store.lastError()));
        store.recordRetrieval(QStringLiteral("s-later"), 1, QStringLiteral("p1"), {records[1].id});
        store.recordRetrieval(QStringLiteral("s-later"), 1, QStringLiteral("p2"), {records[1].id, records[2].id});
        store.recordRetrieval(QStringLiteral("s-later"), 2, QStringLiteral("p3"), {records[1].id});
        store.recordOutcome(QStringLiteral("p1"), true);
        store.recordOutcome(QStringLiteral("p2"), false);
        store.recordOutcome(QStringLiteral("p3"), true);
        if (shownId)
            *shownId = records[1].id;
        return path;
    }

    // A window's context over this memory: the engine that the dock asks.
    std::unique_ptr<AppContext> contextFor(const QString &memory)
    {
        Engine::Settings s;
        s.memoryDb = memory;
        s.workspaceDb = m_dir.filePath(QStringLiteral("workspace-%1.sqlite").arg(++m_file));
        s.hostsFile = m_dir.filePath(QStringLiteral("hosts.json"));
        s.llmConfig = m_dir.filePath(QStringLiteral("llm.json"));
        return std::make_unique<AppContext>(s);
    }
    // Until every request of the dock's has its answer.
    static void settle(MemoryDock &dock) { QTRY_VERIFY_WITH_TIMEOUT(dock.isIdle(), 20000); }
    static void open(MemoryDock &dock)
    {
        dock.ensureOpen();
        QTRY_VERIFY_WITH_TIMEOUT(dock.ensureOpen(), 20000);
        settle(dock);
    }
    // The file as another program reads it.
    static std::optional<ExperienceRecord> stored(const QString &memory, qint64 id)
    {
        ExperienceStore store(memory);
        if (!store.open())
            qFatal("cannot open %s", qPrintable(memory));
        return store.get(id);
    }
    static QList<RetrievalRecord> storedRetrievals(const QString &memory, qint64 id)
    {
        ExperienceStore store(memory);
        if (!store.open())
            qFatal("cannot open %s", qPrintable(memory));
        return store.retrievalsOf(id);
    }

    static int rowOfTitle(MemoryDock &dock, const QString &title)
    {
        for (int row = 0; row < dock.model()->rowCount(); ++row)
            if (dock.model()->index(row, ExperienceListModel::Title).data().toString() == title)
                return row;
        return -1;
    }

    static void select(MemoryDock &dock, const QString &title)
    {
        const int row = rowOfTitle(dock, title);
        QVERIFY2(row >= 0, qPrintable(title));
        dock.view()->setFocus();
        dock.view()->selectionModel()->setCurrentIndex(dock.model()->index(row, ExperienceListModel::Title),
                                                       QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        settle(dock);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void searchFiltersAndDetail()
    {
        ScriptedPrompts prompts;
        qint64 shownId = 0;
        const auto context = contextFor(seededMemory(&shownId));
        MemoryDock dock(context.get(), &prompts);
        dock.resize(1300, 640);
        dock.show();
        open(dock);
        QAbstractItemModelTester tester(dock.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(dock.model()->rowCount(), 4);
        QCOMPARE(dock.countLabel()->text(), QStringLiteral("4 of 4 experiences"));

        // Typing: nothing changes until the pause, then the last word matches as a prefix.
        QTest::keyClicks(dock.searchEdit(), QStringLiteral("stationa"));
        QCOMPARE(dock.model()->rowCount(), 4);
        QTRY_COMPARE(dock.model()->rowCount(), 1);
        settle(dock);
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Title).data().toString(),
                 QStringLiteral("Keep the stationary tile in SBUF"));
        // FTS5 syntax typed by a person is plain text, never an error.
        dock.searchEdit()->setText(QStringLiteral("\"unbalanced (AND OR"));
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 0);
        QVERIFY(prompts.warnings.isEmpty());
        dock.searchEdit()->clear();
        dock.applyFilterNow();
        settle(dock);

        // Filters: task, kind, pinned.
        dock.taskFilter()->setCurrentIndex(dock.taskFilter()->findData(QStringLiteral("matmul")));
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 2);
        dock.kindFilter()->setCurrentIndex(2); // slower only
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 1);
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Title).data().toString(),
                 QStringLiteral("Transposing by DMA stalls the queue"));
        dock.kindFilter()->setCurrentIndex(0);
        dock.taskFilter()->setCurrentIndex(0);
        dock.pinnedFilter()->setChecked(true);
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 0);
        dock.pinnedFilter()->setChecked(false);
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 4);

        // Sorting by speedup, highest first.
        dock.view()->sortByColumn(ExperienceListModel::Speedup, Qt::DescendingOrder);
        settle(dock);
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Speedup).data().toString(), QStringLiteral("2.40×"));
        QCOMPARE(dock.model()->index(3, ExperienceListModel::Speedup).data().toString(), QStringLiteral("0.70×"));

        // The detail: the lesson rendered, the snippets, and who was shown it with what outcome.
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QCOMPARE(dock.selectedId(), shownId);
        const int row = rowOfTitle(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QCOMPARE(dock.model()->index(row, ExperienceListModel::Shown).data().toInt(), 3);
        QCOMPARE(dock.model()->index(row, ExperienceListModel::HitRate).data().toString(),
                 QStringLiteral("67% of 3"));
        QVERIFY(dock.detail()->text()->toPlainText().contains(QStringLiteral("Loading the stationary operand")));
        QVERIFY(dock.detail()->text()->toPlainText().contains(QStringLiteral("s-matmul")));
        QVERIFY(dock.detail()->after()->text().contains(QStringLiteral("affine_range")));
        QCOMPARE(dock.detail()->usage()->topLevelItemCount(), 3);
        QCOMPARE(dock.detail()->usage()->topLevelItem(0)->text(3), QStringLiteral("faster kernel"));
        QCOMPARE(dock.detail()->usage()->topLevelItem(1)->text(3), QStringLiteral("no faster kernel"));
        shoot(dock, artifact(QStringLiteral("memory-detail.png")));

        // Markdown is rendered, not shown raw.
        select(dock, QStringLiteral("Fuse the sigmoid into one activation"));
        QVERIFY(!dock.detail()->text()->toPlainText().contains(QStringLiteral("**scale=-1**")));
        QVERIFY(dock.detail()->text()->toPlainText().contains(QStringLiteral("scale=-1")));
    }

    void editPinDeleteWithUndoFromTheKeyboard()
    {
        ScriptedPrompts prompts;
        qint64 shownId = 0;
        const QString path = seededMemory(&shownId);
        const auto context = contextFor(path);
        MemoryDock dock(context.get(), &prompts);
        dock.resize(1300, 640);
        dock.show();
        open(dock);
        QVERIFY(QTest::qWaitForWindowActive(&dock));
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));

        // Pin with Ctrl+M, undo with Ctrl+Z.
        QTest::keyClick(dock.view(), Qt::Key_M, Qt::ControlModifier);
        settle(dock);
        QVERIFY(stored(path, shownId)->pinned);
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Pinned).data().toString(), QStringLiteral("★"));
        QCOMPARE(dock.pinAction()->text(), QStringLiteral("Un&pin"));
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);
        QVERIFY(!stored(path, shownId)->pinned);

        // Edit with F2: the dialog refuses an empty title, then takes a new one; undo restores the old.
        QTimer::singleShot(0, this, [] {
            auto *dialog = qobject_cast<ExperienceEditDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->titleEdit()->clear();
            QVERIFY(!dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
            dialog->titleEdit()->setText(QStringLiteral("Keep the stationary operand resident in SBUF"));
            dialog->lessonEdit()->setPlainText(QStringLiteral("Load it **once** per k tile."));
            dialog->accept();
        });
        QTest::keyClick(dock.view(), Qt::Key_F2);
        settle(dock);
        QCOMPARE(stored(path, shownId)->experience.title,
                 QStringLiteral("Keep the stationary operand resident in SBUF"));
        dock.activateWindow(); // back from the modal dialog: shortcuts go to the active window
        QVERIFY(QTest::qWaitForWindowActive(&dock));
        settle(dock);
        QVERIFY(dock.detail()->text()->toPlainText().contains(QStringLiteral("Load it once per k tile.")));
        shoot(dock, artifact(QStringLiteral("memory-edited.png")));
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);
        QCOMPARE(stored(path, shownId)->experience.title, QStringLiteral("Keep the stationary tile in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        settle(dock);
        QCOMPARE(stored(path, shownId)->experience.title,
                 QStringLiteral("Keep the stationary operand resident in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);

        // Delete with Del; the usage evidence goes with it and comes back, id and all, on undo.
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_Delete);
        settle(dock);
        QVERIFY(!stored(path, shownId));
        QCOMPARE(dock.model()->rowCount(), 3);
        QVERIFY(dock.selectedId() > 0); // the next one is selected, so Del can go on
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);
        const auto back = stored(path, shownId);
        QVERIFY(back);
        QCOMPARE(back->shown, 3);
        QCOMPARE(back->faster, 2);
        QCOMPARE(storedRetrievals(path, shownId).size(), 3);
        QCOMPARE(dock.selectedId(), shownId);
        QCOMPARE(dock.model()->rowCount(), 4);

        // Every action is in the view's context menu (Shift+F10) with its key.
        const QList<QAction *> menu = dock.view()->actions();
        for (QAction *a : {dock.compareAction(), dock.editAction(), dock.pinAction(), dock.deleteAction(),
                           dock.importAction(), dock.exportAction()}) {
            QVERIFY(menu.contains(a));
            QVERIFY2(!a->shortcut().isEmpty(), qPrintable(a->text()));
        }
    }

    void vanishedExperienceAndOversizedEditAreRefused()
    {
        ScriptedPrompts prompts;
        qint64 shownId = 0;
        const QString path = seededMemory(&shownId);
        const auto context = contextFor(path);
        MemoryDock dock(context.get(), &prompts);
        dock.show();
        open(dock);
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        // Another program deletes the experience while it is selected.
        {
            ExperienceStore other(path);
            QVERIFY(other.open());
            QVERIFY(other.remove(shownId));
        }
        QTest::keyClick(dock.view(), Qt::Key_M, Qt::ControlModifier);
        settle(dock);
        QCOMPARE(dock.undoStack()->count(), 0); // get() found nothing: no command at all
        QVERIFY(prompts.warnings.isEmpty());
        // The store's caps hold for edits as for imports.
        select(dock, QStringLiteral("Fuse the sigmoid into one activation"));
        const qint64 id = dock.selectedId();
        QSignalSpy changed(context.get(), &AppContext::experienceChanged);
        const quint64 job = context->editExperience(id, QStringLiteral("t"), QString(20000, QLatin1Char('x')));
        QTRY_COMPARE(changed.size(), 1);
        QCOMPARE(changed.first().at(0).toULongLong(), job);
        QVERIFY(changed.first().at(1).toString().contains(QStringLiteral("over the limit")));
    }

    void importAndExportRoundTrip()
    {
        ScriptedPrompts prompts;
        const auto context = contextFor(seededMemory());
        MemoryDock dock(context.get(), &prompts);
        dock.show();
        open(dock);
        QVERIFY(QTest::qWaitForWindowActive(&dock));
        const QString exported = m_dir.filePath(QStringLiteral("export.json"));
        prompts.exportAnswers << exported;
        QTest::keyClick(dock.view(), Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        settle(dock);
        QCOMPARE(prompts.information.size(), 1);
        QVERIFY2(prompts.information.constLast().contains(QStringLiteral("Exported 4 experience")),
                 qPrintable(prompts.information.constLast()));

        // Into an empty memory: all four arrive; again: four duplicates; a file with an oversized entry and a
        // new one: one added, one rejected by name.
        const auto emptyContext = contextFor(m_dir.filePath(QStringLiteral("empty.sqlite")));
        MemoryDock empty(emptyContext.get(), &prompts);
        empty.show();
        open(empty);
        empty.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&empty));
        QCOMPARE(empty.model()->rowCount(), 0);
        prompts.openAnswers = {exported}; // the file dialog's answer, every time it is asked
        QTest::keyClick(empty.view(), Qt::Key_I, Qt::ControlModifier | Qt::ShiftModifier);
        settle(empty);
        QVERIFY2(prompts.information.constLast().contains(QStringLiteral("added 4, 0 already")),
                 qPrintable(prompts.information.constLast()));
        QCOMPARE(empty.model()->rowCount(), 4);
        QCOMPARE(empty.taskFilter()->count(), 4); // "All tasks" and the three tasks
        QTest::keyClick(empty.view(), Qt::Key_I, Qt::ControlModifier | Qt::ShiftModifier);
        settle(empty);
        QVERIFY(prompts.information.constLast().contains(QStringLiteral("added 0, 4 already")));

        QFile in(exported);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject document = QJsonDocument::fromJson(in.readAll()).object();
        QJsonArray entries = document.value(QStringLiteral("experiences")).toArray();
        QJsonObject fresh = entries.at(0).toObject();
        fresh[QStringLiteral("title")] = QStringLiteral("A new lesson");
        fresh[QStringLiteral("slow_hash")] = QStringLiteral("new-slow");
        QJsonObject huge = fresh;
        huge[QStringLiteral("title")] = QStringLiteral("Far too long");
        huge[QStringLiteral("slow_hash")] = QStringLiteral("huge-slow");
        huge[QStringLiteral("lesson")] = QString(20000, QLatin1Char('x'));
        document[QStringLiteral("experiences")] = QJsonArray{fresh, huge};
        const QString mixed = m_dir.filePath(QStringLiteral("mixed.json"));
        QFile out(mixed);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(document).toJson());
        out.close();
        prompts.openAnswers = {mixed};
        QTest::keyClick(empty.view(), Qt::Key_I, Qt::ControlModifier | Qt::ShiftModifier);
        settle(empty);
        QVERIFY2(prompts.information.constLast().contains(QStringLiteral("added 1, 0 already")) &&
                     prompts.information.constLast().contains(QStringLiteral("1 rejected")) &&
                     prompts.information.constLast().contains(QStringLiteral("Far too long")),
                 qPrintable(prompts.information.constLast() + prompts.warnings.join(u'\n')));
        QCOMPARE(empty.model()->rowCount(), 5);

        // A file that is not a memory export: nothing imported, and the reason.
        const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
        QFile badFile(bad);
        QVERIFY(badFile.open(QIODevice::WriteOnly));
        badFile.write("[1, 2");
        badFile.close();
        prompts.openAnswers = {bad};
        QTest::keyClick(empty.view(), Qt::Key_I, Qt::ControlModifier | Qt::ShiftModifier);
        settle(empty);
        QVERIFY2(prompts.warnings.constLast().contains(QStringLiteral("Nothing was imported")),
                 qPrintable(prompts.warnings.constLast()));
        QCOMPARE(empty.model()->rowCount(), 5);
        shoot(empty, artifact(QStringLiteral("memory-imported.png")));
    }

    void openInCompareAsksForThePair()
    {
        ScriptedPrompts prompts;
        const QString path = seededMemory();
        const auto context = contextFor(path);
        MemoryDock dock(context.get(), &prompts);
        dock.show();
        open(dock);
        QSignalSpy asked(&dock, &MemoryDock::compareRequested);
        select(dock, QStringLiteral("Accumulate in PSUM across k"));
        QTest::keyClick(dock.view(), Qt::Key_Return); // activating a row opens its pair
        settle(dock);
        QCOMPARE(asked.size(), 1);
        QCOMPARE(asked.at(0).at(0).value<ExperienceRecord>().experience.title,
                 QStringLiteral("Accumulate in PSUM across k"));

        // An imported experience names no session: it says so instead of opening nothing.
        ExperienceRecord loose = record(QStringLiteral("silu"), QStringLiteral("Hand-written note"), 1.2,
                                        QStringLiteral("Written by hand."));
        loose.sessionId.clear();
        {
            ExperienceStore other(path); // added by another program, or the CLI
            QVERIFY(other.open());
            QVERIFY(other.add(loose));
        }
        dock.refresh();
        settle(dock);
        select(dock, QStringLiteral("Hand-written note"));
        QVERIFY(!dock.compareAction()->isEnabled());
        QTest::keyClick(dock.view(), Qt::Key_Return);
        settle(dock);
        QCOMPARE(asked.size(), 1);
        QVERIFY(prompts.information.constLast().contains(QStringLiteral("does not name the kernels")));
    }

    // Beyond ExperienceListModel::relevanceLimit matches the list is not ranked by text (bm25 for each match
    // would cost the keystroke); it is newest first and the count says so. Sorting by a column still works.
    void tooManyMatchesAreListedNewestFirst()
    {
        ScriptedPrompts prompts;
        const QString path = m_dir.filePath(QStringLiteral("large.sqlite"));
        {
            ExperienceStore store(path);
            QVERIFY(store.open());
            QList<ExperienceRecord> records;
            for (int i = 0; i <= ExperienceListModel::relevanceLimit; ++i) {
                ExperienceRecord r = record(QStringLiteral("silu"), QStringLiteral("common word %1").arg(i),
                                            1.0 + i % 100 / 10.0, QStringLiteral("every lesson says common"));
                r.created = QDateTime(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC).addSecs(i);
                if (i == 7)
                    r.experience.lesson += QStringLiteral(" and rare");
                records.append(r);
            }
            QVERIFY(store.importJson(QJsonDocument(ExperienceJson::document(records)).toJson()).ok);
        }
        const auto context = contextFor(path);
        MemoryDock dock(context.get(), &prompts);
        dock.show();
        open(dock);
        dock.searchEdit()->setText(QStringLiteral("common"));
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), ExperienceListModel::relevanceLimit + 1);
        QVERIFY(dock.model()->relevanceSkipped());
        QVERIFY2(dock.countLabel()->text().endsWith(QStringLiteral("newest first")),
                 qPrintable(dock.countLabel()->text()));
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Title).data().toString(),
                 QStringLiteral("common word %1").arg(ExperienceListModel::relevanceLimit));
        dock.view()->sortByColumn(ExperienceListModel::Speedup, Qt::DescendingOrder);
        settle(dock);
        QVERIFY(!dock.model()->relevanceSkipped());
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Speedup).data().toString(), QStringLiteral("10.90×"));
        // A rarer word: few matches.
        dock.searchEdit()->setText(QStringLiteral("common rare"));
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 1);
        QCOMPARE(dock.model()->index(0, ExperienceListModel::Title).data().toString(), QStringLiteral("common word 7"));
    }

    // In the window, Ctrl+Z and Ctrl+Shift+Z are also the Edit menu's: they must reach the dock's curating when
    // the focus is there (two active actions on one key would both be ambiguous, and neither would fire), and
    // the dock's keys must not take the window's (Ctrl+Shift+S stays Save As).
    void keysWorkInsideTheWindow()
    {
        qint64 shownId = 0;
        const QString memory = seededMemory(&shownId);
        qputenv("ACCELOPT_MEMORY_DB", memory.toUtf8());
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace.sqlite")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_M, Qt::ControlModifier | Qt::ShiftModifier);
        MemoryDock &dock = *window.memoryDock();
        QTRY_VERIFY(dock.searchEdit()->hasFocus());
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 4);
        QTRY_VERIFY2(dock.height() >= window.height() * 2 / 5, qPrintable(QString::number(dock.height())));
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_M, Qt::ControlModifier);
        settle(dock);
        QVERIFY(stored(memory, shownId)->pinned);
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);
        QVERIFY(!stored(memory, shownId)->pinned);
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        settle(dock);
        QVERIFY(stored(memory, shownId)->pinned);
        QTest::keyClick(dock.view(), Qt::Key_Y, Qt::ControlModifier); // nothing left to redo: no change
        settle(dock);
        QVERIFY(stored(memory, shownId)->pinned);
        prompts->exportAnswers << m_dir.filePath(QStringLiteral("from-window.json"));
        QTest::keyClick(dock.view(), Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        settle(dock);
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("from-window.json"))));
        QVERIFY(prompts->saveAsAnswers.isEmpty() && prompts->saveQuestions.isEmpty());
        shoot(window, artifact(QStringLiteral("memory-window.png")));
    }

    // Issue 32: a lesson shown in a Compare tab is read again when the memory is changed through the engine's
    // desk (AppContext::memoryChanged): an edit shows the new title, a delete says there is no lesson now.
    void compareTabsFollowTheMemory()
    {
        qint64 shownId = 0;
        const QString memory = seededMemory(&shownId);
        qputenv("ACCELOPT_MEMORY_DB", memory.toUtf8());
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace.sqlite")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_M, Qt::ControlModifier | Qt::ShiftModifier);
        MemoryDock &dock = *window.memoryDock();
        settle(dock);
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_Return); // its pair in Compare, with its lesson
        CompareView *view = nullptr;
        QTRY_VERIFY((view = qobject_cast<CompareView *>(window.editors()->currentWidget())));
        QTRY_COMPARE(view->lesson()->storedId(), shownId);
        QVERIFY(view->lesson()->text()->toPlainText().contains(
            QStringLiteral("Keep the stationary tile in SBUF")));

        window.context()->editExperience(shownId, QStringLiteral("Keep the stationary operand resident"),
                                         QStringLiteral("Load it once per k tile."));
        QTRY_VERIFY2(view->lesson()->text()->toPlainText().contains(QStringLiteral("operand resident")),
                     qPrintable(view->lesson()->text()->toPlainText()));
        window.context()->removeExperience(shownId);
        QTRY_VERIFY2(view->lesson()->state()->text().startsWith(QStringLiteral("No lesson yet")),
                     qPrintable(view->lesson()->state()->text()));
        QCOMPARE(view->lesson()->storedId(), 0);
    }

    void unreadableMemoryIsReportedNotCrashed()
    {
        ScriptedPrompts prompts;
        const QString path = m_dir.filePath(QStringLiteral("not-a-database.sqlite"));
        QFile junk(path);
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write(QByteArray(4096, 'x'));
        junk.close();
        const auto context = contextFor(path);
        MemoryDock dock(context.get(), &prompts);
        dock.show();
        QVERIFY(!dock.ensureOpen());
        QTRY_COMPARE(dock.countLabel()->text(), QStringLiteral("The memory cannot be opened"));
        QVERIFY(!dock.countLabel()->toolTip().isEmpty());
        QVERIFY(!dock.importAction()->isEnabled());
    }

    // Issue 32: the window's thread opens no database. A connection belongs to the thread that made it, and
    // QSqlDatabase::database() hands it out only there; so any connection valid here was opened on the window's
    // thread. The window is used as a person would: the Memory dock listed, searched, curated, exported.
    void theWindowsThreadOpensNoDatabase()
    {
        qint64 shownId = 0;
        const QString memory = seededMemory(&shownId);
        qputenv("ACCELOPT_MEMORY_DB", memory.toUtf8());
        qputenv("ACCELOPT_WORKSPACE_DB", m_dir.filePath(QStringLiteral("workspace-gui.sqlite")).toUtf8());
        qputenv("ACCELOPT_HOSTS_FILE", m_dir.filePath(QStringLiteral("hosts.json")).toUtf8());
        qputenv("ACCELOPT_NO_KEYCHAIN", "1");
        auto prompts = std::make_shared<ScriptedPrompts>();
        MainWindow window(prompts);
        window.resize(1400, 900);
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTest::keyClick(&window, Qt::Key_M, Qt::ControlModifier | Qt::ShiftModifier);
        MemoryDock &dock = *window.memoryDock();
        QTRY_VERIFY(dock.ensureOpen());
        settle(dock);
        dock.searchEdit()->setText(QStringLiteral("stationary"));
        dock.applyFilterNow();
        settle(dock);
        QCOMPARE(dock.model()->rowCount(), 1);
        select(dock, QStringLiteral("Keep the stationary tile in SBUF"));
        QTest::keyClick(dock.view(), Qt::Key_M, Qt::ControlModifier);
        settle(dock);
        QTest::keyClick(dock.view(), Qt::Key_Z, Qt::ControlModifier);
        settle(dock);
        prompts->exportAnswers << m_dir.filePath(QStringLiteral("gui-thread.json"));
        QTest::keyClick(dock.view(), Qt::Key_X, Qt::ControlModifier | Qt::ShiftModifier);
        settle(dock);
        QVERIFY(QFile::exists(m_dir.filePath(QStringLiteral("gui-thread.json"))));
        QStringList here;
        for (const QString &name : QSqlDatabase::connectionNames())
            if (QSqlDatabase::database(name, false).isValid())
                here << name;
        QVERIFY2(here.isEmpty(), qPrintable(QStringLiteral("opened on the window's thread: ") + here.join(u' ')));
        QVERIFY(!QSqlDatabase::connectionNames().isEmpty()); // the engine's own are there, on its thread
    }
};

QTEST_MAIN(TestMemoryDock)
#include "tst_memorydock.moc"
