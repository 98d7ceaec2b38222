git update-index --assume-unchanged src/test/java/queue/BoundedQueueTest.java
