#pragma once

#include <QDockWidget>

class LogFilterModel;
class LogModel;
class QComboBox;
class QTableView;

// The app's own log, live, filterable by level and category.
class LogDock : public QDockWidget
{
    Q_OBJECT
public:
    explicit LogDock(QWidget *parent = nullptr);

    LogModel *model() const { return m_model; }
    LogFilterModel *filter() const { return m_filter; }
    QComboBox *levelBox() const { return m_level; }
    QComboBox *categoryBox() const { return m_category; }

private:
    LogModel *m_model;
    LogFilterModel *m_filter;
    QTableView *m_view;
    QComboBox *m_level;
    QComboBox *m_category;
};
