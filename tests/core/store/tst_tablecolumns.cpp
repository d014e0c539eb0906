// The store's column lists against the schema they describe: every listed column exists in its table of a new
// workspace, so a list cannot name a column the schema does not have; and the resume steps keep their names
// on disk.
#include "store/candidatetable.h"
#include "store/evaluationtable.h"
#include "store/llmcalltable.h"
#include "store/plantable.h"
#include "store/resumestep.h"
#include "store/sessionstore.h"
#include "store/sessiontable.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

class TestTableColumns : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QStringList tableColumns(SessionStore &store, const QString &table)
    {
        QStringList names;
        QSqlQuery q(store.database().connection());
        q.exec(QStringLiteral("PRAGMA table_info(%1)").arg(table));
        while (q.next())
            names << q.value(1).toString();
        return names;
    }

    template<typename Columns>
    void expectIn(SessionStore &store, const QString &table, const Columns &columns)
    {
        const QStringList known = tableColumns(store, table);
        QVERIFY2(!known.isEmpty(), qPrintable(table));
        const QStringList listed = columns.select().split(QStringLiteral(", "));
        QCOMPARE(listed.size(), columns.size());
        for (const QString &name : listed)
            QVERIFY2(known.contains(name), qPrintable(QStringLiteral("%1.%2").arg(table, name)));
    }

private Q_SLOTS:
    void everyListedColumnExists()
    {
        SessionStore store(m_dir.filePath(QStringLiteral("ws.sqlite")));
        QVERIFY2(store.open(), qPrintable(store.lastError()));
        expectIn(store, QStringLiteral("sessions"), SessionTable::columns());
        expectIn(store, QStringLiteral("plans"), PlanTable::columns());
        expectIn(store, QStringLiteral("candidates"), CandidateTable::columns());
        expectIn(store, QStringLiteral("evaluations"), EvaluationTable::columns());
        expectIn(store, QStringLiteral("llm_calls"), LlmCallTable::columns());
    }
    void selectsWithAnAliasAndPlaceholders()
    {
        QVERIFY(CandidateTable::select().startsWith(QStringLiteral("c.id, c.session_id, ")));
        QVERIFY(SessionTable::columns().placeholders().startsWith(QStringLiteral(":id, :task_name, ")));
        QCOMPARE(SessionTable::columns().placeholder(SessionTable::Column::StopReason),
                 QStringLiteral(":stop_reason"));
    }
    void resumeStepsKeepTheirNames()
    {
        // Written by every version: a session stopped by an older one resumes at the same step.
        const QStringList names{QStringLiteral("baseline"), QStringLiteral("plan"), QStringLiteral("execute"),
                                QStringLiteral("select"), QStringLiteral("summarize")};
        for (const QString &name : names) {
            const std::optional<ResumeStep> step = ResumeSteps::fromName(name);
            QVERIFY2(step, qPrintable(name));
            QCOMPARE(ResumeSteps::name(*step), name);
        }
        QVERIFY(!ResumeSteps::fromName(QStringLiteral("plans")));
    }
};

QTEST_GUILESS_MAIN(TestTableColumns)
#include "tst_tablecolumns.moc"
