#pragma once

#include "model/calibration.h"

#include <QWidget>

class AppContext;
class QLabel;
class QTableWidget;
class ThemedChartView;

// The Profile dock's Calibration tab (issue 34): for every kernel the workspace measured both on nkisim and
// on a hardware host, nkisim's prediction against the device's measurement, as a table and a log-log scatter
// with the identity line, and per kind of kernel and target the median and worst error. What tells a user how
// far to trust nkisim. Data comes from the engine (Engine::loadCalibration); this view holds no store.
class CalibrationView : public QWidget
{
    Q_OBJECT
public:
    explicit CalibrationView(AppContext *context, QWidget *parent = nullptr);

    void refresh(); // asks the engine again; the answer replaces what is shown
    void setCalibration(const Calibration &calibration);
    const Calibration &calibration() const { return m_calibration; }

private:
    AppContext *m_context;
    quint64 m_job = 0;
    Calibration m_calibration;
    QLabel *m_summary;
    QTableWidget *m_groups;
    QTableWidget *m_pairs;
    ThemedChartView *m_chart;
};
