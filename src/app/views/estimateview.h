#pragma once

#include "model/evalprofile.h"

#include <QWidget>

class QLabel;
class QTreeWidget;

// The Profile dock's "Estimate" tab: which modelled effects make up nkisim's estimate (the bound engine, each
// engine's load, the effects by share of the run), the same as `accelopt bench --explain`.
class EstimateView : public QWidget
{
    Q_OBJECT
public:
    explicit EstimateView(QWidget *parent = nullptr);
    void setProfile(const EvalProfilePtr &profile);
    QTreeWidget *effects() const { return m_effects; }
    QLabel *headline() const { return m_headline; }

private:
    QLabel *m_headline;
    QTreeWidget *m_engines;
    QTreeWidget *m_effects;
};
