target triple = "nvptx64-nvidia-cuda"
define void @f(ptr %p, i32 %n) {
entry:
  %x = mul i32 %n, %n
  %c = icmp slt i32 %n, 7
  br i1 %c, label %join, label %other
other:
  %y = mul i32 %x, %n
  br label %join
join:
  %q = phi i32 [%x, %entry], [%y, %other]
  store i32 %q, ptr %p
  ret void
}
