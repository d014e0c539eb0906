#pragma once

#include "study/studyresult.h"
#include "study/studystate.h"

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;
class ThemedChartView;

// One study (issue 36) as the Study dock shows it: what it is and where it stands; per task and arm the best
// % of peak and speedup over the repeats (mean [least-most]) against what was spent (USD, or "unpriced" and
// why; tokens, evaluations, device time); the chart of best % of peak against cost (StudyChart); and every
// run's session, which Enter or a double-click opens in the Search dock. Everything shown comes from the
// core's StudyResult over the StudyState it is given; this view reads no file.
class StudyView : public QWidget
{
    Q_OBJECT
public:
    enum Column
    {
        Task,
        Arm,
        Repeats,
        BestPercent,
        Speedup,
        Usd,
        Tokens,
        Evaluations,
        DeviceSeconds,
        ColumnCount
    };
    enum SessionColumn
    {
        RunTask,
        RunArm,
        RunRepeat,
        RunSession,
        RunRounds,
        RunBest,
        RunEvaluations,
        RunState,
        SessionColumnCount
    };

    explicit StudyView(QWidget *parent = nullptr);

    void setStudy(const StudyState &state);
    const StudyState &study() const { return m_state; }

    QLabel *summary() const { return m_summary; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableWidget *table() const { return m_table; }
    QTableWidget *sessions() const { return m_sessions; }
    QComboBox *taskChoice() const { return m_task; }
    ThemedChartView *chartView() const { return m_chart; }

    // The text a cell shows for a mean and its spread over repeats: "12.34 [11.00-13.68]", one value alone
    // when there is one repeat, "-" when none has a value.
    static QString spreadText(int n, double mean, double min, double max, int decimals);

Q_SIGNALS:
    void openSessionRequested(const QString &sessionId);

private:
    void fillTable();
    void fillSessions();
    void drawChart();

    StudyState m_state;
    std::optional<StudyResult> m_result;
    QLabel *m_summary;
    QLabel *m_taskLabel;
    QComboBox *m_task;
    QTabWidget *m_tabs;
    QTableWidget *m_table;
    QTableWidget *m_sessions;
    ThemedChartView *m_chart;
};
